import type * as grpc from '@grpc/grpc-js';

/**
 * Salesforce's session check on every call: metadata `accesstoken` must be a session the org
 * currently accepts, `instanceurl` and `tenantid` must name that org. Tests set and rotate the
 * accepted tokens; an expired or unknown one gets UNAUTHENTICATED.
 */

export interface OrgIdentity {
  orgId: string;
  instanceUrl: string;
}

export interface Sessions {
  /** Replaces the accepted tokens: every other token is now expired. */
  setValidTokens(tokens: readonly string[]): void;
  addValidToken(token: string): void;
  expireToken(token: string): void;
  validTokens(): string[];
  accepts(metadata: grpc.Metadata): boolean;
}

/** Metadata as plain strings, for recording (binary `-bin` values as base64). */
export function metadataRecord(metadata: grpc.Metadata): Record<string, string> {
  const map = metadata.getMap();
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, typeof value === 'string' ? value : value.toString('base64')]));
}

const first = (metadata: grpc.Metadata, key: string): string | undefined => {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
};

export function createSessions(org: OrgIdentity, initial: readonly string[]): Sessions {
  const valid = new Set(initial);
  return {
    setValidTokens(tokens) {
      valid.clear();
      for (const token of tokens) valid.add(token);
    },
    addValidToken: (token) => void valid.add(token),
    expireToken: (token) => void valid.delete(token),
    validTokens: () => [...valid],
    accepts(metadata) {
      const token = first(metadata, 'accesstoken');
      // An instance URL with or without its trailing slash names the same org.
      const instanceUrl = first(metadata, 'instanceurl')?.replace(/\/$/, '');
      return token !== undefined && valid.has(token) && instanceUrl === org.instanceUrl.replace(/\/$/, '') && first(metadata, 'tenantid') === org.orgId;
    },
  };
}
