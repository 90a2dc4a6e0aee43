export interface StaticServer {
  readonly url: string;
  close(): Promise<void>;
  setRoot(root: string): void;
}
export declare function startServer(options: {
  root: string;
  base?: string;
  port?: number;
  host?: string;
  isolation?: boolean;
  cors?: boolean;
}): Promise<StaticServer>;
