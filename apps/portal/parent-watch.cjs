/*
 * Preloaded into the portal process by `npm start` (node --require): ends the
 * portal when the launcher that started it is gone. The launcher stops the
 * portal on Ctrl-C / SIGTERM (scripts/start.ts), but a launcher killed outright
 * (SIGKILL, an OOM kill, a test runner's hard stop) cannot; its `next-server`
 * would live on as an orphan, holding the port, and a later `npm start` or test
 * run would talk to the old portal. An orphan is re-parented, so a changed
 * parent PID means the launcher is gone.
 */
"use strict";

const parent = process.ppid;
const timer = setInterval(() => {
  if (process.ppid !== parent) {
    console.error(`[portal] the launcher (pid ${parent}) is gone; stopping`);
    process.exit(0);
  }
}, 1000);
timer.unref();
