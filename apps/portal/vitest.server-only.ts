// Vitest stand-in for the "server-only" marker package, whose real entry throws
// outside React's server build; the unit tests of src/server run in plain Node.
export {};
