// A failed delivery in one of the few words a subscriber is told (DeliveryErrorCategory): what kind of failure, never
// the endpoint's own words or the details of the network, so the callback URL cannot be used to probe what the
// server can reach or read.
import { DeliveryErrorCategory } from '../core/webhook-subscription.js';
import { OutboundFetchError } from '../outbound/safe-fetch.js';

// Node's and OpenSSL's codes for a handshake or certificate that failed: the endpoint answered, but not as itself.
const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
]);

function isTlsCode(code: string): boolean {
  return TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.includes('CERT');
}

/** The error code of the failure under a `network` error (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, ...), if any. */
function codeOf(error: OutboundFetchError): string | undefined {
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/**
 * The category of a failed attempt: safeFetch's error, or the status of a response that was not a success. A refused
 * address, a redirect, an oversized answer and any network failure without a better word count as
 * `connection_refused`: the endpoint could not be used.
 */
export function categoryOf(error: OutboundFetchError | { readonly status: number }): DeliveryErrorCategory {
  if (!(error instanceof OutboundFetchError)) {
    if (error.status >= 500) return DeliveryErrorCategory.Http5xx;
    if (error.status >= 400) return DeliveryErrorCategory.Http4xx;
    // safeFetch turns a 3xx into a redirect error; nothing else reaches here but a status that was no answer.
    return DeliveryErrorCategory.ConnectionRefused;
  }
  if (error.reason === 'timeout') return DeliveryErrorCategory.Timeout;
  if (error.reason === 'network') {
    const code = codeOf(error);
    if (code === 'ETIMEDOUT') return DeliveryErrorCategory.Timeout;
    if (code !== undefined && isTlsCode(code)) return DeliveryErrorCategory.TlsError;
  }
  return DeliveryErrorCategory.ConnectionRefused;
}
