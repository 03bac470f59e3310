import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Tests start real servers (Prism, Chromium) on loopback; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The bundled spec and docs are built once by `npm test` (tools/tasks/test.ts) before vitest starts.
    globalSetup: ['test/setup/require-build.ts'],
  },
});
