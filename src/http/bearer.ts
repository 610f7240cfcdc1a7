/**
 * The token of an `Authorization: Bearer <token>` header, the scheme in any case; undefined for a
 * missing header, another scheme (`Basic …`) or a value that is not exactly one token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1];
}
