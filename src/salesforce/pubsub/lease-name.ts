/**
 * The singleton lease (store.channels.tryLease / releaseLease, as the retention timer holds its
 * own) under which one instance subscribes to one org's channel: several instances on one
 * PostgreSQL never stream the same topic twice, and one that dies gives it up when the lease runs
 * out. docs/operations.md, "Salesforce Pub/Sub (Change Data Capture)", lists the names.
 */
export const pubsubLeaseName = (orgId: string, topic: string): string => `salesforce-pubsub:${orgId}:${topic}`;
