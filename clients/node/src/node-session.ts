/** The HTTP/2 connection of one Node.js connection of the client. */

import type * as http2 from "node:http2";

import { Http2SessionManager } from "@connectrpc/connect-node";

/**
 * Connect-ES's HTTP/2 session manager, whose sessions never raise an error nobody listens to.
 *
 * A server that drains sends GOAWAY; on a session with no call open, the manager destroys it
 * with an error that Node.js raises once the socket has closed. If a new call has made the
 * manager connect again by then, the manager no longer listens to the old session, and the
 * error would end the process. The manager reports every error of a session it uses to the
 * calls on it; what the old session raises afterwards concerns no call, so it is let go.
 */
export class SessionManager {
  private readonly manager: Http2SessionManager;
  private readonly sessions = new Set<http2.Http2Session>();

  constructor(url: string, options: http2.SecureClientSessionOptions) {
    this.manager = new Http2SessionManager(url, {}, options);
  }

  get authority(): string {
    return this.manager.authority;
  }

  async request(
    method: string,
    path: string,
    headers: http2.OutgoingHttpHeaders,
    options: Omit<http2.ClientSessionRequestOptions, "signal">,
  ): Promise<http2.ClientHttp2Stream> {
    const stream = await this.manager.request(method, path, headers, options);
    const { session } = stream;
    if (session !== undefined && !this.sessions.has(session)) {
      this.sessions.add(session);
      session.on("error", () => undefined);
      session.once("close", () => this.sessions.delete(session));
    }
    return stream;
  }

  notifyResponseByteRead(stream: http2.ClientHttp2Stream): void {
    this.manager.notifyResponseByteRead(stream);
  }

  /**
   * Close the connection as HTTP/2 means it (GOAWAY with no error), once its calls, which the
   * client has cancelled, are done.
   */
  close(): void {
    for (const session of this.sessions) {
      session.close();
    }
  }
}
