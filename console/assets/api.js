/** Calls to the admin API. Every call carries the key; paths are relative to the page (/admin/). */

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/**
 * @param {{ getKey: () => string | null, onUnauthorized: () => void }} options
 */
export function createApi({ getKey, onUnauthorized }) {
  /**
   * @param {string} method @param {string} path
   * @param {{ query?: Record<string, unknown>, body?: unknown, signal?: AbortSignal, etag?: string }} [options] `signal` aborts the request (a newer search superseded it)
   * @returns {Promise<{ payload: any, etag: string | null, notModified: boolean }>}
   */
  async function send(method, path, { query, body, signal, etag } = {}) {
    const url = new URL(path, document.baseURI);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
    }
    const headers = { Accept: 'application/json', Authorization: `Bearer ${getKey() ?? ''}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    // A live refresh asks "changed since?". The explicit Cache-Control keeps fetch from adding its
    // own no-cache, under which the server never answers 304.
    if (etag) Object.assign(headers, { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      signal,
    });
    if (response.status === 304) return { payload: null, etag, notModified: true };
    // A 204 (a cleared pin) has no body.
    const payload = response.status === 204 ? null : await response.json().catch(() => null);
    if (response.status === 401) onUnauthorized();
    if (!response.ok) {
      const error = payload?.error ?? {};
      throw new ApiError(response.status, error.code ?? 'http_error', error.message ?? `HTTP ${response.status}`, error.details);
    }
    return { payload, etag: response.headers.get('ETag'), notModified: false };
  }
  const call = async (method, path, options) => (await send(method, path, options)).payload;
  return {
    /** @param {string} path @param {Record<string, unknown>} [query] @param {{ signal?: AbortSignal }} [options] */
    get: (path, query, { signal } = {}) => call('GET', path, { query, signal }),
    /**
     * A GET that says whether the answer changed since the one tagged `etag` (none: the first).
     * @param {string} path @param {Record<string, unknown>} query @param {string | null} etag @param {{ signal?: AbortSignal }} [options]
     */
    getIfChanged: async (path, query, etag, { signal } = {}) => {
      const answer = await send('GET', path, { query, signal, etag: etag ?? undefined });
      return { ...answer, notModified: answer.notModified || (etag !== null && answer.etag === etag) };
    },
    /** `query`: for the routes that take options as query parameters (a manual remap's flags). */
    post: (path, body, query) => call('POST', path, { body, query }),
    put: (path, body) => call('PUT', path, { body }),
    del: (path) => call('DELETE', path),
  };
}
