// BODY_LIMIT as a number of bytes ("1mb" → 1048576), the way the JSON body parser reads it.
const UNITS = { b: 1, kb: 1024, mb: 1024 * 1024 } as const;

const isUnit = (text: string): text is keyof typeof UNITS => Object.hasOwn(UNITS, text);

export function bytes(limit: string): number {
  const [, digits, unit = 'b'] = /^([0-9]+)(b|kb|mb)?$/.exec(limit) ?? [];
  if (digits === undefined || !isUnit(unit)) throw new Error(`not a size: ${limit}`);
  return Number(digits) * UNITS[unit];
}
