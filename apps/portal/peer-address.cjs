/*
 * Preloaded into the portal process by `npm start` (node --require): puts the
 * TCP peer address of every HTTP request into a request header, because Next's
 * route handlers and proxy see headers only, and the X-Forwarded-For that Next
 * fills in is kept as the client sent it when present (so a client could
 * choose its own "address"). The header's name is random per process and
 * published to the portal through process.env, so no client can send it.
 * Used for sign-in throttling per client address (src/server/client-address.ts).
 *
 * It also answers requests with a method their route does not declare (405
 * with Allow, method-guard.cjs) before Next sees them: Next failed with a 500
 * on methods it does not know (TRACE).
 */
"use strict";
const http = require("node:http");
const { randomBytes } = require("node:crypto");
const { refuseUndeclaredMethod } = require("./method-guard.cjs");

const header = `x-kappa-peer-${randomBytes(8).toString("hex")}`;
process.env.KAPPA_PEER_ADDRESS_HEADER = header;

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function emitWithPeer(event, ...args) {
  if (event === "request" && args[0] && args[0].headers) {
    if (args[1] && refuseUndeclaredMethod(args[0], args[1])) return true;
    args[0].headers[header] = (args[0].socket && args[0].socket.remoteAddress) || "";
  }
  return emit.call(this, event, ...args);
};
