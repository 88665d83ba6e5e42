// BODY_LIMIT as a number of bytes ("1mb" → 1048576), the way the JSON body parser reads it.
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

export function bytes(limit: string): number {
  const match = /^([0-9]+)(b|kb|mb)?$/.exec(limit);
  if (!match) throw new Error(`not a size: ${limit}`);
  return Number(match[1]) * (UNITS[match[2] ?? 'b'] as number);
}
