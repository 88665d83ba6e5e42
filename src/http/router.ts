// Every router of the service: paths are case-sensitive, as the interface writes them. Express matches them
// case-insensitively by default, which made `/v1/Delivery/…` reach the delivery routes while the customer
// middleware read `Delivery` as a customer id.
import { Router } from 'express';

export const caseSensitiveRouter = (options: { strict?: boolean } = {}): Router => Router({ caseSensitive: true, ...options });
