import { describe, expect, it } from 'vitest';

import { parseEventSchema } from '../../../src/salesforce/pubsub/avro-schema.ts';
import { fieldNamesFromBitmaps, setBits } from '../../../src/salesforce/pubsub/field-bitmap.ts';
import { cdcSchema } from './support/change-events.ts';

const HEADER = { name: 'ChangeEventHeader', type: { type: 'record', name: 'ChangeEventHeader', fields: [{ name: 'entityName', type: 'string' }] } };
const optional = (name: string, type: unknown = 'string') => ({ name, type: ['null', type], default: null });

/** A change event schema with the header then `count` plain fields F1…F<count>. */
function wideSchema(count: number) {
  const fields = [HEADER, ...Array.from({ length: count }, (_, i) => optional(`F${i + 1}`))];
  return parseEventSchema(JSON.stringify({ type: 'record', name: 'WideChangeEvent', fields }), 'wide');
}

const address = (name: string) => ({
  type: 'record',
  name,
  fields: ['Street', 'City', 'State', 'PostalCode', 'Country'].map((part) => optional(part)),
});

function accountSchema() {
  return parseEventSchema(
    JSON.stringify({
      type: 'record',
      name: 'AccountChangeEvent',
      fields: [
        HEADER,
        {
          name: 'Name',
          type: ['null', 'string', { type: 'record', name: 'Switchable_PersonName', fields: ['FirstName', 'LastName'].map((part) => optional(part)) }],
          default: null,
        },
        optional('BillingAddress', address('Address')),
        optional('ShippingAddress', 'Address'),
        optional('Site__c', { type: 'record', name: 'Location', fields: [optional('Latitude', 'double'), optional('Longitude', 'double')] }),
        optional('Phone'),
      ],
    }),
    'account',
  );
}

describe('fieldNamesFromBitmaps', () => {
  it('when the top bitmap is 0x650004E0, then bits 5, 6, 7, 10, 24, 26, 29 and 30 name their fields, lowest first', () => {
    expect(setBits('650004E0')).toEqual([5, 6, 7, 10, 24, 26, 29, 30]);

    expect(fieldNamesFromBitmaps(wideSchema(31), ['0x650004E0'])).toEqual(['F5', 'F6', 'F7', 'F10', 'F24', 'F26', 'F29', 'F30']);
  });

  it('when a schema has more than 32 fields, then a longer bitmap reaches them as one big-endian number', () => {
    const schema = wideSchema(45);

    expect(fieldNamesFromBitmaps(schema, ['0x0100000000'])).toEqual(['F32']);
    expect(fieldNamesFromBitmaps(schema, ['0x100000000002'])).toEqual(['F1', 'F44']);
    expect(fieldNamesFromBitmaps(schema, ['0x00000000000002'])).toEqual(['F1']);
  });

  it('when hex digits are lower case or the count of digits is odd, then they read the same', () => {
    expect(fieldNamesFromBitmaps(wideSchema(12), ['0xa02'])).toEqual(['F1', 'F9', 'F11']);
  });

  it('when a Contact change marks parts of Name, then the parts come out by their REST names', () => {
    const contact = cdcSchema('Contact');

    // Contact: 0 header, 1 AccountId, 2 Name {Salutation, FirstName, LastName, …}, 3 Email.
    expect(fieldNamesFromBitmaps(contact, ['0x08', '2-0x06'])).toEqual(['Email', 'FirstName', 'LastName']);
  });

  it('when every part of a compound is marked, then every part is listed (no folding into the parent)', () => {
    expect(fieldNamesFromBitmaps(cdcSchema('Lead'), ['1-0x3F'])).toEqual(['Salutation', 'FirstName', 'LastName', 'MiddleName', 'InformalName', 'Suffix']);
  });

  it('when the top bitmap marks a compound field itself, then it is named as the compound', () => {
    expect(fieldNamesFromBitmaps(cdcSchema('Lead'), ['0x02'])).toEqual(['Name']);
  });

  it('when an Account change marks address, geolocation and person-name parts, then addresses take their prefix and a geolocation its __s form', () => {
    const account = accountSchema();

    expect(fieldNamesFromBitmaps(account, ['0x20', '2-0x03', '3-0x10', '4-0x02', '1-0x02'])).toEqual([
      'Phone',
      'BillingStreet',
      'BillingCity',
      'ShippingCountry',
      'Site__Longitude__s',
      'LastName',
    ]);
  });

  it('when an entry is already a field name, then it is kept, and a name given twice comes out once', () => {
    expect(fieldNamesFromBitmaps(cdcSchema('Opportunity'), ['StageName', '0x08', 'StageName'])).toEqual(['StageName']);
  });

  it('when a list is empty, then no names come out', () => {
    expect(fieldNamesFromBitmaps(cdcSchema('Opportunity'), [])).toEqual([]);
  });

  it('when a bitmap marks a field past the end of the schema, then a typed error names the entry', () => {
    expect(() => fieldNamesFromBitmaps(wideSchema(3), ['0x10'])).toThrow(
      expect.objectContaining({ name: 'PubSubDecodeError', code: 'pubsub_bitmap_invalid', details: { entry: '0x10' } }),
    );
  });

  it('when a compound entry points at a field that is not compound, or past the end, then a typed error is raised', () => {
    const contact = cdcSchema('Contact');

    expect(() => fieldNamesFromBitmaps(contact, ['3-0x01'])).toThrow(/Email, which is not a compound field/);
    expect(() => fieldNamesFromBitmaps(contact, ['99-0x01'])).toThrow(expect.objectContaining({ code: 'pubsub_bitmap_invalid' }));
    expect(() => fieldNamesFromBitmaps(contact, ['2-0x80'])).toThrow(/marks field 7, but .*Switchable_PersonName has 6 fields/);
  });

  it('when an entry is neither a bitmap nor a field name, then a typed error is raised', () => {
    for (const entry of ['0x', '0xZZ', 'x-0x01', 'NoSuchField', '']) {
      expect(() => fieldNamesFromBitmaps(cdcSchema('Opportunity'), [entry]), entry).toThrow(expect.objectContaining({ code: 'pubsub_bitmap_invalid' }));
    }
  });
});
