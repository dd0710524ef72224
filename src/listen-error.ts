// Why a server could not listen, told as the option to change: the port (in use, privileged) or the host
// (not an address of this machine). Shared by the HTTP API and the camera simulator.

/** How the caller's user spells the host and port options, e.g. { host: '--host', port: '--port' }. */
export interface ListenOptionNames {
  readonly host: string;
  readonly port: string;
}

export function listenFailure(err: NodeJS.ErrnoException, host: string, port: number, names: ListenOptionNames): string {
  const code = err.code ?? err.message;
  if (code === 'EADDRINUSE') return `${names.port} ${port}: the port is already in use on ${host}; choose another port, or 0 for any free port`;
  if (code === 'EACCES') return `${names.port} ${port}: not allowed to listen on this port (EACCES; ports below 1024 need privileges); choose a port above 1023, or 0 for any free port`;
  // ENOTFOUND (no such name), EADDRNOTAVAIL (an address of another machine), EAFNOSUPPORT, ...
  return `${names.host} ${host}: cannot listen on this address (${code}); give an address of this machine, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`;
}
