// bench/ (lib/*.ts, quota.ts, latency.ts) imports the builder from this path; the tests import it
// from test/salesforce/support/. Remove this file once bench/ imports that path.
export * from '../salesforce/support/outbound-message-builder.ts';
