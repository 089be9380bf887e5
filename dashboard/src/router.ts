import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router'
import { pages } from './pages'
import { loadSession, may, setUpIsOpen, whenSessionLost } from './session/session'
import type { OperationId } from './api/operations'

declare module 'vue-router' {
  interface RouteMeta {
    /** Reachable without signing in (setup, sign-in). */
    public?: boolean
    /** The operation the page reads: a role that may not call it does not get the page. */
    needs?: OperationId
  }
}

const routes: RouteRecordRaw[] = [
  { path: '/setup', name: 'setup', component: () => import('./pages/auth/SetupPage.vue'), meta: { public: true } },
  { path: '/sign-in', name: 'sign-in', component: () => import('./pages/auth/SignInPage.vue'), meta: { public: true } },
  {
    path: '/',
    component: () => import('./layout/AppLayout.vue'),
    children: pages.map((page) => ({ path: page.path, name: page.name, component: page.load, meta: { needs: page.needs } })),
  },
  // History mode: the gateway answers index.html for any page path; an unknown one lands here.
  { path: '/:unknown(.*)*', redirect: { name: 'overview' } },
]

export const router = createRouter({ history: createWebHistory(), routes })

router.beforeEach(async (to) => {
  const session = await loadSession()
  if (to.meta.public) {
    if (session) return { name: 'overview' }
    // The setup form only on a fresh gateway, the sign-in form otherwise.
    const open = await setUpIsOpen()
    if (to.name === 'setup' && !open) return { name: 'sign-in' }
    if (to.name === 'sign-in' && open) return { name: 'setup' }
    return true
  }
  if (!session) return { name: (await setUpIsOpen()) ? 'setup' : 'sign-in', query: to.fullPath === '/' ? {} : { next: to.fullPath } }
  if (to.meta.needs && !may(to.meta.needs)) return { name: 'overview' }
  return true
})

whenSessionLost(() => {
  const here = router.currentRoute.value
  void router.replace({ name: 'sign-in', query: here.fullPath === '/' ? {} : { next: here.fullPath } })
})
