import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy that holds every chunk `delayMs` before passing it on, each way: a database on another machine,
 * for the ingestion benchmark's remote run (ingest.ts `benchRemote`), where the loopback makes a round trip nearly
 * free. Run in its own process, so its work is not the server's: input (argv[2], JSON) { host, port, delayMs };
 * prints the port it listens on (127.0.0.1) and runs until killed. Chunks keep their order: timers of the same
 * delay fire in the order they were set.
 */
const { host, port, delayMs } = JSON.parse(process.argv[2] ?? '{}') as { host: string; port: number; delayMs: number };

const server = createServer((client) => {
  const target = connect(port, host);
  const pipe = (from: Socket, to: Socket) => from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
  for (const socket of [client, target]) {
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      client.destroy();
      target.destroy();
    });
  }
  pipe(client, target);
  pipe(target, client);
});
server.listen(0, '127.0.0.1', () => console.log((server.address() as { port: number }).port));
