/**
 * The JSON org a fake Salesforce answers from, the standard fields it knows for each object, and
 * the relationships it resolves. An object's fields are its standard fields here plus every key
 * found on its records in the org (a test may add `Tier__c` by writing it on a record).
 */
export interface JsonOrg {
  [sObject: string]: Array<Record<string, unknown>>;
}

/** Field types, as far as SOQL filters and sorts them (docs/protocols.md §2 "SOQL"). */
export type FieldType = 'id' | 'string' | 'boolean' | 'number' | 'date' | 'datetime';

const AUDIT = { CreatedDate: 'datetime', LastModifiedDate: 'datetime', SystemModstamp: 'datetime' } as const;

/** The standard fields of each object the fake knows without a record (reference fields are `id`). */
export const STANDARD_FIELDS: Record<string, Record<string, FieldType>> = {
  User: { Id: 'id', Email: 'string', Name: 'string', FirstName: 'string', LastName: 'string', Username: 'string', IsActive: 'boolean', ...AUDIT },
  Account: { Id: 'id', Name: 'string', Website: 'string', Type: 'string', Industry: 'string', OwnerId: 'id', ParentId: 'id', ...AUDIT },
  Contact: { Id: 'id', Email: 'string', Name: 'string', FirstName: 'string', LastName: 'string', AccountId: 'id', OwnerId: 'id', ...AUDIT },
  Lead: {
    Id: 'id',
    Email: 'string',
    Name: 'string',
    FirstName: 'string',
    LastName: 'string',
    Company: 'string',
    Status: 'string',
    IsConverted: 'boolean',
    ConvertedAccountId: 'id',
    ConvertedContactId: 'id',
    ConvertedOpportunityId: 'id',
    OwnerId: 'id',
    ...AUDIT,
  },
  Opportunity: {
    Id: 'id',
    Name: 'string',
    AccountId: 'id',
    OwnerId: 'id',
    IsClosed: 'boolean',
    IsWon: 'boolean',
    StageName: 'string',
    Type: 'string',
    Amount: 'number',
    Probability: 'number',
    CloseDate: 'date',
    ...AUDIT,
  },
  OpportunityContactRole: { Id: 'id', OpportunityId: 'id', ContactId: 'id', IsPrimary: 'boolean', Role: 'string', ...AUDIT },
  OpportunityTeamMember: { Id: 'id', OpportunityId: 'id', UserId: 'id', TeamMemberRole: 'string', ...AUDIT },
};

/**
 * A relationship SOQL can walk. `parent`: `from.field` holds the id of a `to` record, reached as
 * `name.Field` (`Owner.Email`). `child`: `to` records whose `field` holds a `from` record's id,
 * reached as a subquery `(SELECT … FROM name)`.
 */
export interface Relationship {
  kind: 'parent' | 'child';
  from: string;
  name: string;
  field: string;
  to: string;
}

const owner = (from: string): Relationship => ({ kind: 'parent', from, name: 'Owner', field: 'OwnerId', to: 'User' });

export const RELATIONSHIPS: readonly Relationship[] = [
  owner('Opportunity'),
  owner('Account'),
  owner('Contact'),
  owner('Lead'),
  { kind: 'parent', from: 'Contact', name: 'Account', field: 'AccountId', to: 'Account' },
  { kind: 'parent', from: 'Opportunity', name: 'Account', field: 'AccountId', to: 'Account' },
  { kind: 'parent', from: 'OpportunityContactRole', name: 'Contact', field: 'ContactId', to: 'Contact' },
  { kind: 'parent', from: 'OpportunityContactRole', name: 'Opportunity', field: 'OpportunityId', to: 'Opportunity' },
  { kind: 'parent', from: 'OpportunityTeamMember', name: 'User', field: 'UserId', to: 'User' },
  { kind: 'parent', from: 'OpportunityTeamMember', name: 'Opportunity', field: 'OpportunityId', to: 'Opportunity' },
  { kind: 'child', from: 'Opportunity', name: 'OpportunityContactRoles', field: 'OpportunityId', to: 'OpportunityContactRole' },
  { kind: 'child', from: 'Opportunity', name: 'OpportunityTeamMembers', field: 'OpportunityId', to: 'OpportunityTeamMember' },
  { kind: 'child', from: 'Account', name: 'Contacts', field: 'AccountId', to: 'Contact' },
  { kind: 'child', from: 'Account', name: 'Opportunities', field: 'AccountId', to: 'Opportunity' },
];
