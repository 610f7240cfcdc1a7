import { z } from 'zod';

/*
 * The one rule for every link the bridge takes in and forwards (a recording's `recordingUrl` and
 * `callUrl`, from the signed route, the admin import or a Salesforce record): an absolute URL whose
 * scheme is http or https. Momentum shows these links to people, so a `javascript:` or `data:`
 * link is refused where it arrives, never stored and never sent.
 */

export const HTTP_URL_MESSAGE = 'expected an absolute http or https URL';

/** A zod string that is an absolute http(s) URL; callers add their own length bound. */
export const httpUrl = () => z.url({ protocol: /^https?$/, error: HTTP_URL_MESSAGE });

const checked = httpUrl();

/** Whether `text` passes the same rule, for code that decides outside a schema. */
export const isHttpUrl = (text: string): boolean => checked.safeParse(text).success;
