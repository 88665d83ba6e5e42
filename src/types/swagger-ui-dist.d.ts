// swagger-ui-dist ships no types; this is the one function the docs route uses.
declare module 'swagger-ui-dist/absolute-path.js' {
  export default function getAbsoluteFSPath(): string;
}
