// One winston logger for the process. Every entry made while a request is handled carries its request id.
// Pretty lines only when stdout is a terminal; JSON otherwise.
import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

const addRequestId = winston.format((info) => {
  const context = requestContext.getStore();
  if (context && info.request_id === undefined) info.request_id = context.requestId;
  return info;
});

export type Logger = winston.Logger;

export function createLogger(options: { level: string; transports?: winston.transport[]; pretty?: boolean }): Logger {
  const pretty = options.pretty ?? Boolean(process.stdout.isTTY);
  return winston.createLogger({
    level: options.level,
    format: winston.format.combine(
      addRequestId(),
      winston.format.timestamp(),
      pretty ? winston.format.combine(winston.format.colorize(), winston.format.simple()) : winston.format.json(),
    ),
    transports: options.transports ?? [new winston.transports.Console()],
  });
}
