/**
 * A local stand-in for an on-prem OpenAI-compatible server (vLLM, Ollama…):
 * `/v1/models` and streaming `/v1/chat/completions`, with CORS so the app in
 * the browser can call it. Records what it received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAi {
  readonly baseUrl: string;
  readonly received: Record<string, unknown>[];
  /** The Authorization header of every request, in order ('' when absent). */
  readonly authorizations: string[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });
}

export async function startFakeOpenAi(models: string[] = ['medgemma-4b-it']): Promise<FakeOpenAi> {
  const received: Record<string, unknown>[] = [];
  const authorizations: string[] = [];
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Content-Type, Authorization', 'Access-Control-Allow-Methods': 'GET, POST' };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    authorizations.push(req.headers.authorization ?? '');
    if (req.url === '/v1/models') {
      res.writeHead(200, { ...cors, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id })) }));
      return;
    }
    if (req.url !== '/v1/chat/completions') {
      res.writeHead(404, cors);
      res.end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    received.push(body);
    res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream' });
    for (const piece of ['Connected', '.']) {
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece }, finish_reason: null }] })}\n\n`);
      await new Promise((r) => setTimeout(r, 10));
    }
    res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 97, completion_tokens: 2 } })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    authorizations,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
