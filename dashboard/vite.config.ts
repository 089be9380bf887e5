import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

/** The gateway `npm run dev:dashboard` forwards API calls to (a running `node ace serve`). */
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [vue()],
  resolve: {
    // The gateway's own pure SMS text rules (encoding, segments, links), shared so the Send
    // page counts exactly as the server does.
    alias: { '@sms': fileURLToPath(new URL('../app/core/sms', import.meta.url)) },
  },
  build: {
    // The gateway serves public/ at / (config/static.ts); adonisrc metaFiles copy it into build/.
    outDir: fileURLToPath(new URL('../public', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
  },
  server: {
    proxy: {
      '/api': { target: gateway, ws: true },
      '/__transmit': gateway,
      '/health': gateway,
    },
  },
})
