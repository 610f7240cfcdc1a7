import type { INetworkModule, NetworkRequestOptions, NetworkResponse } from '@azure/msal-node';
import { Agent } from 'undici';

/**
 * MSAL's HTTP calls through the project's HTTP client (undici) instead of MSAL's own, so the
 * token requests share the bridge's timeouts and TLS settings. Every request goes only where MSAL
 * sends it: the configured authority (MICROSOFT_LOGIN_URL, a known authority, so no instance
 * discovery elsewhere).
 */
export function undiciNetworkModule(options: { timeoutMs?: number } = {}): INetworkModule & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  async function send<T>(method: 'GET' | 'POST', url: string, request: NetworkRequestOptions | undefined, timeout?: number): Promise<NetworkResponse<T>> {
    const target = new URL(url);
    const response = await agent.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method,
      headers: request?.headers ?? {},
      body: method === 'POST' ? (request?.body ?? '') : undefined,
      signal: AbortSignal.timeout(timeout ?? timeoutMs),
    });
    const text = await response.body.text();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      // MSAL reads error fields from the body; a non-JSON answer (a proxy page) becomes an error it can report.
      body = { error: 'invalid_response', error_description: `HTTP ${response.statusCode}: ${text.slice(0, 200)}` };
    }
    return { status: response.statusCode, headers, body: body as T };
  }

  return {
    sendGetRequestAsync: (url, request, timeout) => send('GET', url, request, timeout),
    sendPostRequestAsync: (url, request) => send('POST', url, request),
    close: () => agent.close(),
  };
}
