import type { RequestHandler } from 'express';

import { AppError } from '../core/errors.ts';
import { quoted } from '../core/excerpt.ts';

/** The media type of a Content-Type header, lower case, without parameters ('' when absent). */
export const mediaTypeOf = (header: string | undefined): string => (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** The charset parameter, lower case and unquoted; undefined when the header names none. */
export const charsetOf = (header: string | undefined): string | undefined => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header ?? '')?.[1]?.toLowerCase();

/**
 * Bodies are read as UTF-8 (and signatures cover their bytes): a sender declaring another
 * charset would have its text read wrongly, so it is refused instead. No charset means UTF-8
 * (JSON travels in no other encoding); `utf8` is another name of the same encoding.
 */
export function refuseOtherCharset(header: string | undefined): AppError | undefined {
  const charset = charsetOf(header);
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return undefined;
  return new AppError('unsupported_charset', `charset ${quoted(charset, 40)} is not accepted; send UTF-8`, { status: 415 });
}

/**
 * Refuses, before the body is read, a request whose media type is not one of `accepted` (415
 * unsupported_media_type, `hint` saying what to send), then one declaring a charset other than
 * UTF-8 (refuseOtherCharset).
 */
export function requireContentType(accepted: readonly string[], hint: string): RequestHandler {
  const types = new Set(accepted.map((type) => type.toLowerCase()));
  return (req, _res, next) => {
    const header = req.get('content-type');
    if (!types.has(mediaTypeOf(header))) {
      return next(new AppError('unsupported_media_type', `Content-Type ${quoted(header || '(none)')} is not accepted; send ${hint}`, { status: 415 }));
    }
    next(refuseOtherCharset(header));
  };
}
