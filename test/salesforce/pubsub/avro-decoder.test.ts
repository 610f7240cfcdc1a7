import { describe, expect, it } from 'vitest';

import { createChangeDecoder, decodeChange } from '../../../src/salesforce/pubsub/avro-decoder.ts';
import { parseEventSchema } from '../../../src/salesforce/pubsub/avro-schema.ts';
import type { SchemaInfo } from '../../../src/salesforce/pubsub/pubsub-messages.ts';
import { cdcSchema, encodeChange, schemaJson } from './support/change-events.ts';

describe('decodeChange', () => {
  it('when an Opportunity update arrives, then the header is typed, the bitmaps are names, only non-null fields are kept and dates are ISO 8601 text', () => {
    const schema = cdcSchema('Opportunity');
    // Opportunity: 0 header, 1 AccountId, 2 Name, 3 StageName, 4 Amount, 5 CloseDate, 6 IsClosed, 7 OwnerId, … 10 LastModifiedDate.
    const payload = encodeChange(schema, {
      header: { changedFields: ['0x418'], nulledFields: ['0x10'], commitNumber: 9_007_199_254_740_993n },
      fields: { StageName: 'Closed Won', CloseDate: 1_714_089_600_000, LastModifiedDate: 1_714_156_685_000 },
    });

    const change = decodeChange(schema, payload, 'opp-schema');

    expect(change).toEqual({
      header: {
        entityName: 'Opportunity',
        recordIds: ['006000000000001AAA'],
        changeType: 'UPDATE',
        changeOrigin: 'com/salesforce/api/rest/62.0;client=SfdcInternalAPI/',
        transactionKey: '00006bec-ce66-0611-9018-30a98446c9f2',
        sequenceNumber: 1,
        commitTimestamp: 1_714_156_685_000,
        commitNumber: '9007199254740993',
        commitUser: '005000000000001AAA',
        changedFields: ['StageName', 'Amount', 'LastModifiedDate'],
        nulledFields: ['Amount'],
        diffFields: [],
      },
      fields: { StageName: 'Closed Won', CloseDate: '2024-04-26', LastModifiedDate: '2024-04-26T18:38:05.000Z' },
    });
  });

  it('when a Contact is created with a Name, then the name parts are flattened to FirstName and LastName', () => {
    const schema = cdcSchema('Contact');
    const payload = encodeChange(schema, {
      header: { entityName: 'Contact', changeType: 'CREATE', recordIds: ['003000000000001AAA'] },
      fields: {
        Name: { Salutation: null, FirstName: 'Ada', LastName: 'Lovelace', MiddleName: null, InformalName: null, Suffix: null },
        Email: 'ada@example.com',
      },
    });

    const change = decodeChange(schema, payload);

    expect(change.header.changeType).toBe('CREATE');
    expect(change.fields).toEqual({ FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' });
  });

  it('when a GAP_OVERFLOW arrives, then it carries only its header and no fields', () => {
    const schema = cdcSchema('Event');
    const payload = encodeChange(schema, { header: { entityName: 'Event', changeType: 'GAP_OVERFLOW', recordIds: ['000000000000000AAA'] } });

    expect(decodeChange(schema, payload)).toMatchObject({ header: { changeType: 'GAP_OVERFLOW', recordIds: ['000000000000000AAA'] }, fields: {} });
  });

  it('when values need care to store, then U+0000 is removed, bytes become base64 and a long past 2^53 becomes a decimal string', () => {
    const schema = parseEventSchema(
      JSON.stringify({
        ...JSON.parse(schemaJson('Opportunity')),
        fields: [
          ...(JSON.parse(schemaJson('Opportunity')) as { fields: unknown[] }).fields,
          { name: 'Blob__c', type: ['null', 'bytes'], default: null },
          // A required long, as a custom number field's value could exceed 2^53.
          { name: 'Big__c', type: 'long' },
        ],
      }),
      'extended',
    );
    const payload = encodeChange(schema, { fields: { Name: 'Acme\u0000 deal', Blob__c: Buffer.from('hi'), Big__c: 2n ** 60n + 1n } });
    const safe = encodeChange(schema, { fields: { Big__c: -(2n ** 53n - 1n) } });

    expect(decodeChange(schema, payload).fields).toEqual({ Name: 'Acme deal', Blob__c: 'aGk=', Big__c: '1152921504606846977' });
    expect(decodeChange(schema, safe).fields).toEqual({ Big__c: -9_007_199_254_740_991 });
  });

  it('when a double is not finite, then a typed error names the field', () => {
    const schema = cdcSchema('Opportunity');
    const payload = encodeChange(schema, { fields: { Amount: Number.NaN } });

    expect(() => decodeChange(schema, payload)).toThrow(expect.objectContaining({ code: 'pubsub_value_invalid', details: { field: 'Amount' } }));
  });

  it('when the payload is cut short or has bytes left over, then a typed payload error is raised', () => {
    const schema = cdcSchema('Lead');
    const payload = encodeChange(schema, { header: { entityName: 'Lead' }, fields: { Company: 'Acme' } });

    expect(() => decodeChange(schema, payload.subarray(0, payload.length - 3), 'lead')).toThrow(
      expect.objectContaining({ code: 'pubsub_payload_invalid', details: { schemaId: 'lead' } }),
    );
    expect(() => decodeChange(schema, Buffer.concat([payload, Buffer.from([1, 2])]))).toThrow(expect.objectContaining({ code: 'pubsub_payload_invalid' }));
  });

  it('when the change type is one the bridge does not handle, then a typed header error is raised', () => {
    const schema = cdcSchema('Lead');
    const payload = encodeChange(schema, { header: { changeType: 'SNAPSHOT' } });

    expect(() => decodeChange(schema, payload)).toThrow(
      expect.objectContaining({ code: 'pubsub_header_invalid', message: expect.stringContaining('SNAPSHOT') }),
    );
  });

  it('when the schema is not a change event schema, then a typed header error is raised', () => {
    const platformEvent = parseEventSchema(
      JSON.stringify({ type: 'record', name: 'Order_Placed__e', fields: [{ name: 'OrderId__c', type: ['null', 'string'] }] }),
      'pe',
    );

    expect(() => decodeChange(platformEvent, Buffer.from([0]), 'pe')).toThrow(expect.objectContaining({ code: 'pubsub_header_invalid' }));
  });

  it('when a schema is not Avro, then a typed schema error is raised', () => {
    expect(() => parseEventSchema('{"type": "recrod"}', 'bad')).toThrow(
      expect.objectContaining({ code: 'pubsub_schema_invalid', details: { schemaId: 'bad' } }),
    );
    expect(() => parseEventSchema('not json', 'bad')).toThrow(expect.objectContaining({ code: 'pubsub_schema_invalid' }));
    expect(() => parseEventSchema('"string"', 'bad')).toThrow(/not a record/);
  });
});

describe('createChangeDecoder', () => {
  function countingFetch(failFirst = false) {
    const asked: string[] = [];
    const fetchSchema = async (schemaId: string): Promise<SchemaInfo> => {
      asked.push(schemaId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (failFirst && asked.length === 1) throw new Error('UNAVAILABLE');
      return { schema_json: schemaJson('Opportunity'), schema_id: schemaId, rpc_id: 'rpc' };
    };
    return { asked, fetchSchema };
  }

  it('when many events of one schema are decoded at once, then the schema is fetched once and shared', async () => {
    const { asked, fetchSchema } = countingFetch();
    const decoder = createChangeDecoder(fetchSchema);
    const payload = encodeChange(cdcSchema('Opportunity'), { fields: { Name: 'Deal' } });

    const changes = await Promise.all(Array.from({ length: 5 }, () => decoder.decode({ schema_id: 'opp-1', payload })));
    await decoder.decode({ schema_id: 'opp-1', payload });

    expect(changes.map((change) => change.fields)).toEqual(Array.from({ length: 5 }, () => ({ Name: 'Deal' })));
    expect(asked).toEqual(['opp-1']);
  });

  it('when a schema fetch fails, then the failure is not cached and the next decode fetches again', async () => {
    const { asked, fetchSchema } = countingFetch(true);
    const decoder = createChangeDecoder(fetchSchema);
    const payload = encodeChange(cdcSchema('Opportunity'), { fields: { Name: 'Deal' } });

    await expect(decoder.decode({ schema_id: 'opp-1', payload })).rejects.toThrow('UNAVAILABLE');
    const change = await decoder.decode({ schema_id: 'opp-1', payload });

    expect(change.fields).toEqual({ Name: 'Deal' });
    expect(asked).toEqual(['opp-1', 'opp-1']);
  });
});
