import { numOrNull, textOrNull } from './row-mappers.ts';
import type { SqlRunner } from './sql-channel-store.ts';
import type { GraphSubscription, SubscriptionStore, WatchedMailbox } from './subscription-store.ts';

type Row = Record<string, unknown>;

function toMailbox(row: Row): WatchedMailbox {
  return {
    userId: String(row.user_id),
    watching: Number(row.watching) === 1,
    addedBy: String(row.added_by),
    deltaLink: textOrNull(row.delta_link),
    windowStartedAt: numOrNull(row.window_started_at),
    lastSyncAt: numOrNull(row.last_sync_at),
    lastError: textOrNull(row.last_error),
    updatedAt: Number(row.updated_at),
  };
}

function toSubscription(row: Row): GraphSubscription {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    clientState: String(row.client_state),
    expiration: Number(row.expiration),
    createdAt: Number(row.created_at),
    renewedAt: numOrNull(row.renewed_at),
    removedAt: numOrNull(row.removed_at),
  };
}

/** SubscriptionStore over either engine, with SQL both accept (`$n` placeholders, rewritten by the runner). */
export function createSqlSubscriptionStore(runner: SqlRunner): SubscriptionStore {
  const q = (sql: string, params: readonly unknown[] = []) => runner.query(sql, params);

  return {
    async watchMailbox(userId, addedBy, now) {
      const rows = await q(
        `INSERT INTO microsoft_mailboxes (user_id, watching, added_by, delta_link, last_sync_at, last_error, updated_at) VALUES ($1, 1, $2, NULL, NULL, NULL, $3)
         ON CONFLICT (user_id) DO UPDATE SET watching = 1, added_by = excluded.added_by, updated_at = excluded.updated_at
         RETURNING *`,
        [userId, addedBy, now],
      );
      return toMailbox(rows[0]!);
    },
    async unwatchMailbox(userId, now) {
      const rows = await q(`UPDATE microsoft_mailboxes SET watching = 0, updated_at = $2 WHERE user_id = $1 RETURNING user_id`, [userId, now]);
      return rows.length > 0;
    },
    async seedMailboxes(userIds, now) {
      for (const userId of userIds) {
        await q(
          `INSERT INTO microsoft_mailboxes (user_id, watching, added_by, delta_link, last_sync_at, last_error, updated_at) VALUES ($1, 1, 'config', NULL, NULL, NULL, $2)
           ON CONFLICT (user_id) DO NOTHING`,
          [userId, now],
        );
      }
    },
    async getMailbox(userId) {
      const rows = await q(`SELECT * FROM microsoft_mailboxes WHERE user_id = $1`, [userId]);
      return rows[0] === undefined ? undefined : toMailbox(rows[0]);
    },
    async listMailboxes() {
      return (await q(`SELECT * FROM microsoft_mailboxes ORDER BY user_id`)).map(toMailbox);
    },
    async setDeltaLink(userId, deltaLink, now, windowStartedAt) {
      // Parameters are cast (src/store/sql.ts): uncast, PostgreSQL refuses this statement, "could not
      // determine data type of parameter $2" (the one read in `IS NULL`), so no delta link was ever stored.
      await q(
        `UPDATE microsoft_mailboxes SET delta_link = CAST($2 AS TEXT), updated_at = CAST($3 AS BIGINT),
           window_started_at = CASE WHEN CAST($2 AS TEXT) IS NULL THEN NULL ELSE COALESCE(CAST($4 AS BIGINT), window_started_at) END
         WHERE user_id = $1`,
        [userId, deltaLink, now, windowStartedAt ?? null],
      );
    },
    async recordMailboxOutcome(userId, outcome, now) {
      await q(
        `UPDATE microsoft_mailboxes SET last_sync_at = COALESCE(CAST($2 AS BIGINT), last_sync_at), last_error = CAST($3 AS TEXT), updated_at = CAST($4 AS BIGINT)
         WHERE user_id = $1`,
        [userId, outcome.syncedAt ?? null, outcome.error ?? null, now],
      );
    },

    async saveSubscription(subscription) {
      await q(
        `INSERT INTO graph_subscriptions (id, user_id, client_state, expiration, created_at, renewed_at, removed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET expiration = excluded.expiration, renewed_at = excluded.renewed_at, removed_at = excluded.removed_at`,
        [
          subscription.id,
          subscription.userId,
          subscription.clientState,
          subscription.expiration,
          subscription.createdAt,
          subscription.renewedAt,
          subscription.removedAt,
        ],
      );
    },
    async getSubscription(id) {
      const rows = await q(`SELECT * FROM graph_subscriptions WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : toSubscription(rows[0]);
    },
    async getSubscriptions(ids) {
      const wanted = [...new Set(ids)];
      if (wanted.length === 0) return [];
      // One statement for a whole batch, the ids as one parameter: an array for PostgreSQL, JSON for SQLite.
      const rows =
        runner.dialect === 'postgres'
          ? await q(`SELECT * FROM graph_subscriptions WHERE id = ANY(CAST($1 AS TEXT[])) ORDER BY id`, [wanted])
          : await q(`SELECT * FROM graph_subscriptions WHERE id IN (SELECT value FROM json_each($1)) ORDER BY id`, [JSON.stringify(wanted)]);
      return rows.map(toSubscription);
    },
    async activeSubscriptions() {
      return (await q(`SELECT * FROM graph_subscriptions WHERE removed_at IS NULL ORDER BY created_at, id`)).map(toSubscription);
    },
    async extendSubscription(id, expiration, now) {
      await q(`UPDATE graph_subscriptions SET expiration = $2, renewed_at = $3 WHERE id = $1`, [id, expiration, now]);
    },
    async removeSubscription(id, now) {
      await q(`UPDATE graph_subscriptions SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL`, [id, now]);
    },
  };
}
