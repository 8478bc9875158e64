/** Set by the proxy on every request and response; error bodies and server logs carry the same id. */
export const REQUEST_ID_HEADER = "x-request-id";
