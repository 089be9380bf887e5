import { onBeforeUnmount } from 'vue'

/**
 * Calls `handler` when the operator comes back to the page: the tab becomes visible again or
 * the window gets the focus back. For figures the live stream does not announce yet; no timer,
 * so a page left open in the background asks nothing.
 */
export function usePageFocus(handler: () => void) {
  let last = 0
  const comeBack = () => {
    if (document.visibilityState !== 'visible') return
    // Switching tabs fires both events: one read is enough.
    const now = Date.now()
    if (now - last < 1000) return
    last = now
    handler()
  }
  document.addEventListener('visibilitychange', comeBack)
  window.addEventListener('focus', comeBack)
  onBeforeUnmount(() => {
    document.removeEventListener('visibilitychange', comeBack)
    window.removeEventListener('focus', comeBack)
  })
}
