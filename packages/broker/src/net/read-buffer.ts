// Socket reads into one reused buffer.
//
// By default every TCP read hands JavaScript a freshly allocated 64 KiB
// backing store. Under a steady produce stream that is tens of thousands of
// external allocations a second, and V8 answers the external-memory pressure
// with full mark-compacts (the profile of session 4: ~23 % of the broker
// thread's busy time in GC on a 10 MB heap). Node's `onread` option makes a
// socket read into a buffer we supply and call us with the byte count instead;
// the frame reader copies the bytes into the frame they belong to before the
// callback returns, so one buffer serves every connection: libuv allocates,
// reads and calls back for one socket at a time on this thread, and nothing
// keeps a view of the buffer after its callback.
//
// `onread` is a documented option of `new net.Socket()` and `net.connect()`,
// but `net.Server` has no such option for the sockets it accepts. A plain TCP
// listener is therefore created with `pauseOnConnect` (the accepted socket has
// not started reading), and its handle is moved into a new Socket that has the
// `onread` option — Node's own server builds its sockets the same way
// (`new Socket({ handle, ... })`, lib/net.js onconnection in Node 20). The
// accepted socket object keeps the server's connection count: it is detached
// from the handle and destroyed when the new socket closes, so
// `server.maxConnections` and `server.close()` keep their meaning.
//
// The target may also be a function, which Node asks for the buffer of each
// next read (lib/net.js `onread.buffer`, called before the first read and
// after every callback): the broker answers with the unfilled part of a large
// frame being assembled, so that its bytes go from the kernel straight into
// the frame's own buffer, and with the shared buffer otherwise (connection.ts
// `readTarget`).
//
// TLS listeners keep Node's default reads (the TLS socket decrypts into its own
// buffers; `adoptWithReadBuffer` returns null for anything but a TCP handle).
import { Socket, type ConnectOpts, type SocketConstructorOpts } from "node:net";

/** Size of the shared read buffer: one read takes up to this much from a socket. */
export const READ_BUFFER_BYTES = 1024 * 1024;

/** Called with bytes `buffer[0, n)` (the buffer the read went into), valid only during the call. */
export type ReadCallback = (buffer: Buffer, n: number) => void;

/**
 * The buffer the socket's next read goes into: one buffer for every read, or a
 * function Node calls before the first read and after each callback (its
 * answer must stay valid until the read into it has been reported).
 */
export type ReadTarget = Buffer | (() => Buffer);

/** The libuv TCP handle of a socket Node's server accepted, if it is one whose reads can go to a user buffer. */
function tcpHandleOf(socket: Socket): object | null {
  // `_handle` is Node's private field for the libuv wrap; there is no public accessor.
  const handle: unknown = Reflect.get(socket, "_handle");
  if (typeof handle !== "object" || handle === null) return null;
  // Only libuv's TCP wrap: a TLS wrap has the same methods but its own read path.
  const isTcp = handle.constructor.name === "TCP" && typeof Reflect.get(handle, "useUserBuffer") === "function";
  return isTcp ? handle : null;
}

/**
 * Moves an accepted, not yet reading socket (a server created with
 * `pauseOnConnect: true`) to a new Socket that reads into `buffer` and calls
 * `onRead`. Returns the new socket (reading), or null when the socket is not a
 * plain TCP socket (then the caller uses it as it is, and resumes it).
 */
export function adoptWithReadBuffer(accepted: Socket, buffer: ReadTarget, onRead: ReadCallback): Socket | null {
  const handle = tcpHandleOf(accepted);
  if (!handle || accepted.destroyed) return null;
  // @types/node 20 lists `onread` under ConnectOpts only; Node 20's Socket constructor reads it (lib/net.js), as its docs now say.
  const options: SocketConstructorOpts & ConnectOpts & { handle: object } = {
    handle,
    readable: true,
    writable: true,
    allowHalfOpen: accepted.allowHalfOpen,
    onread: {
      buffer,
      // Node passes the buffer this read went into (with a function target, its latest answer).
      callback: (n: number, into: Buffer) => {
        onRead(into, n);
        // Flow control is the connection's (socket.pause()/resume()), not this return value.
        return true;
      },
    },
  };
  // The new socket takes the handle over (owner, onread callback, user buffer) and starts reading.
  const adopted = new Socket(options);
  // The accepted object no longer owns the handle: destroying it now only updates the server's count.
  Reflect.set(accepted, "_handle", null);
  adopted.once("close", () => accepted.destroy());
  return adopted;
}
