import avro from 'avsc';
import { beforeEach, describe, expect, it } from 'vitest';

import { type FakePubSub, OVERFLOW_RECORD_ID } from './fake-pubsub.ts';
import { fakePubSubPerTest } from './fake-pubsub-per-test.ts';
import { avroType } from './pubsub/avro.ts';
import type { TestClient } from './pubsub/test-client.ts';

type Datum = Record<string, unknown> & { ChangeEventHeader: Record<string, unknown> };

/** Salesforce's documented reading of a bitmap list: `0x…` bit i is schema field i; `n-0x…` the children of compound field n. */
function fieldNames(schema: avro.types.RecordType, bitmaps: string[]): string[] {
  const names = (record: avro.types.RecordType, hex: string, prefix: string) => {
    const bits = BigInt(hex);
    return record.fields.filter((_, i) => (bits >> BigInt(i)) & 1n).map((field) => `${prefix}${field.name}`);
  };
  return bitmaps.flatMap((bitmap) => {
    const [parent, child] = bitmap.split('-');
    if (child === undefined) return names(schema, bitmap, '');
    const field = schema.fields[Number(parent)] as avro.types.Field;
    const compound = (field.type as avro.types.UnwrappedUnionType).types[1] as avro.types.RecordType;
    return names(compound, child, `${field.name}.`);
  });
}

const openFake = fakePubSubPerTest();

describe('fake Salesforce Pub/Sub API: change events, schemas and topics', () => {
  let fake: FakePubSub;
  let client: TestClient;

  beforeEach(async () => {
    ({ fake, client } = await openFake());
  });

  async function decode(schemaId: string, payload: Buffer): Promise<{ schema: avro.types.RecordType; datum: Datum }> {
    const info = await client.getSchema(schemaId);
    const schema = avroType(JSON.parse(info.schema_json) as avro.Schema) as avro.types.RecordType;
    return { schema, datum: schema.fromBuffer(payload) as Datum };
  }

  it('when a topic and its schema are asked for, then GetTopic and GetSchema answer as Salesforce does', async () => {
    const topic = await client.getTopic('/data/OpportunityChangeEvent');
    expect(topic).toMatchObject({
      topic_name: '/data/OpportunityChangeEvent',
      tenant_guid: fake.orgId,
      can_subscribe: true,
      schema_id: fake.schemaId('Opportunity'),
    });
    expect(topic.rpc_id).not.toBe('');

    const schema = await client.getSchema(topic.schema_id);
    expect(schema.schema_id).toBe(topic.schema_id);
    expect(JSON.parse(schema.schema_json)).toMatchObject({
      name: 'OpportunityChangeEvent',
      fields: [
        { name: 'ChangeEventHeader' },
        { name: 'AccountId' },
        { name: 'Name' },
        { name: 'StageName' },
        { name: 'Amount' },
        { name: 'CloseDate' },
        { name: 'IsClosed' },
        { name: 'OwnerId' },
        { name: 'CreatedDate' },
        { name: 'CreatedById' },
        { name: 'LastModifiedDate' },
        { name: 'LastModifiedById' },
      ],
    });
    expect(fake.calls.map((call) => [call.method, call.request])).toEqual([
      ['GetTopic', { topic_name: '/data/OpportunityChangeEvent' }],
      ['GetSchema', { schema_id: topic.schema_id }],
    ]);
  });

  it('when events are published, then their replay ids are 10 opaque bytes, increasing, with gaps, holding 0x00 and 0xff', () => {
    const ids = Array.from(
      { length: 50 },
      (_, i) => fake.publish('/data/LeadChangeEvent', { header: { entityName: 'Lead', recordIds: [`00Q${i}`], changeType: 'CREATE' } }).replayId,
    );

    for (const id of ids) expect(id).toHaveLength(10);
    for (let i = 1; i < ids.length; i += 1) expect(Buffer.compare(ids[i - 1] as Buffer, ids[i] as Buffer)).toBe(-1);
    const asNumbers = ids.map((id) => BigInt(`0x${id.toString('hex')}`));
    expect(asNumbers.some((n, i) => i > 0 && n - (asNumbers[i - 1] as bigint) > 1n)).toBe(true);
    expect(ids.every((id) => id.includes(0x00) && id.includes(0xff))).toBe(true);
  });

  it('when an update is published, then its payload decodes with every field present, the header exact and the changed fields as a bitmap', async () => {
    const commitNumber = 2n ** 53n + 12_345n;
    const event = fake.publish('/data/OpportunityChangeEvent', {
      header: {
        entityName: 'Opportunity',
        recordIds: ['006A', '006B'],
        changeType: 'UPDATE',
        changeOrigin: 'com/salesforce/api/rest/62.0;client=bridge',
        commitNumber,
        commitTimestamp: 1_700_000_000_123,
        commitUser: '005X',
      },
      fields: { StageName: 'Closed Won', Amount: 1234.5, IsClosed: true, CloseDate: null },
    });

    const { schema, datum } = await decode(event.schemaId, event.payload);
    expect(datum.ChangeEventHeader).toMatchObject({
      entityName: 'Opportunity',
      recordIds: ['006A', '006B'],
      changeType: 'UPDATE',
      changeOrigin: 'com/salesforce/api/rest/62.0;client=bridge',
      commitNumber,
      commitTimestamp: 1_700_000_000_123n,
      commitUser: '005X',
      sequenceNumber: 1,
    });
    expect(datum).toMatchObject({ Name: null, AccountId: null, StageName: 'Closed Won', CloseDate: null, OwnerId: null, Amount: 1234.5, IsClosed: true });
    // Fields 3 (StageName), 4 (CloseDate), 6 (Amount) and 7 (IsClosed): 0b1101_1000.
    // StageName, Amount, CloseDate and IsClosed are fields 3 to 6 of the schema.
    expect(datum.ChangeEventHeader.changedFields).toEqual(['0x78']);
    expect(fieldNames(schema, datum.ChangeEventHeader.changedFields as string[])).toEqual(['StageName', 'Amount', 'CloseDate', 'IsClosed']);
    expect(fieldNames(schema, datum.ChangeEventHeader.nulledFields as string[])).toEqual(['CloseDate']);
  });

  it('when a compound name changes, then its children are listed as n-0x… after the top-level bitmap', async () => {
    const event = fake.publish('/data/ContactChangeEvent', {
      header: { entityName: 'Contact', recordIds: ['003A'], changeType: 'UPDATE' },
      fields: { Name: { LastName: 'Lovelace', Salutation: null }, Email: 'ada@example.com' },
    });

    const { schema, datum } = await decode(event.schemaId, event.payload);
    expect(datum.Name).toEqual({ Salutation: null, FirstName: null, LastName: 'Lovelace', MiddleName: null, InformalName: null, Suffix: null });
    // Email is field 3; Name is field 2, its Salutation child 0 and LastName child 2.
    expect(datum.ChangeEventHeader.changedFields).toEqual(['0x08', '2-0x05']);
    expect(fieldNames(schema, datum.ChangeEventHeader.changedFields as string[])).toEqual(['Email', 'Name.Salutation', 'Name.LastName']);
    expect(datum.ChangeEventHeader.nulledFields).toEqual(['2-0x01']);
  });

  it('when changed fields are named explicitly, then the bitmap spans bytes as needed', async () => {
    const event = fake.publish('/data/EventChangeEvent', {
      header: { entityName: 'Event', recordIds: ['00UA'], changeType: 'UPDATE', changedFields: ['Subject', 'LastModifiedDate'], diffFields: ['Description'] },
    });

    const { schema, datum } = await decode(event.schemaId, event.payload);
    // Subject is field 3, LastModifiedDate field 13: two bytes.
    expect(datum.ChangeEventHeader.changedFields).toEqual(['0x2008']);
    expect(fieldNames(schema, datum.ChangeEventHeader.changedFields as string[])).toEqual(['Subject', 'LastModifiedDate']);
    expect(fieldNames(schema, datum.ChangeEventHeader.diffFields as string[])).toEqual(['Description']);
  });

  it('when a gap event is published, then it carries only the header', async () => {
    const event = fake.publishGap('/data/OpportunityContactRoleChangeEvent', 'OpportunityContactRole', 'GAP_UPDATE', ['00KA', '00KB']);

    const { datum } = await decode(event.schemaId, event.payload);
    expect(datum.ChangeEventHeader).toMatchObject({
      entityName: 'OpportunityContactRole',
      recordIds: ['00KA', '00KB'],
      changeType: 'GAP_UPDATE',
      changedFields: [],
      nulledFields: [],
      diffFields: [],
    });
    expect(datum).toMatchObject({ OpportunityId: null, ContactId: null, Role: null, IsPrimary: null });
  });

  it('when a transaction overflows, then one GAP_OVERFLOW event per entity names the overflow record id, in one transaction', async () => {
    const events = fake.publishOverflow('/data/ChangeEvents', ['Contact', 'Lead']);

    const decoded = await Promise.all(events.map(async (event) => (await decode(event.schemaId, event.payload)).datum.ChangeEventHeader));
    expect(decoded).toMatchObject([
      { entityName: 'Contact', changeType: 'GAP_OVERFLOW', recordIds: [OVERFLOW_RECORD_ID] },
      { entityName: 'Lead', changeType: 'GAP_OVERFLOW', recordIds: [OVERFLOW_RECORD_ID] },
    ]);
    expect(decoded[0]?.transactionKey).toBe(decoded[1]?.transactionKey);
    expect(events.map((event) => event.schemaId)).toEqual([fake.schemaId('Contact'), fake.schemaId('Lead')]);
  });

  it('when a change names a field the schema lacks, then publishing throws instead of sending a malformed event', () => {
    expect(() =>
      fake.publish('/data/LeadChangeEvent', { header: { entityName: 'Lead', recordIds: ['00QA'], changeType: 'UPDATE' }, fields: { Nope: 1 } }),
    ).toThrow(/no field Nope/);
    expect(fake.retained('/data/LeadChangeEvent')).toEqual([]);
  });
});
