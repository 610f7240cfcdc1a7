/** A loopback Salesforce that evaluates real SOQL over a JSON org (see server.ts and evaluate.ts). */
export { evaluateSoql, type QueryAnswer } from './evaluate.ts';
export { type FieldType, type JsonOrg, type Relationship, RELATIONSHIPS, STANDARD_FIELDS } from './org.ts';
export { type FakeSalesforceOrg, type FakeSalesforceOrgOptions, startFakeSalesforceOrg } from './server.ts';
export { SoqlError } from './soql-error.ts';
