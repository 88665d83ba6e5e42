// What the middleware puts in every request's res.locals, typed for the handlers and logs that read it.
declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      /** The customer the path names, once it is known to be well formed. */
      customerId?: string;
      /** The contract's operation the request was routed to. */
      operationId?: string;
    }
  }
}

export {};
