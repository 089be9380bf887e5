import { test } from '@japa/runner'
import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import type { Router } from '@adonisjs/core/http'
import { RouteRegistry } from '#core/contract/route_registry'
import type { RouteContract } from '#core/contract/route_contract'
import { access } from '#core/http/access'

class Clerk {
  name = 'clerk'
}

let made = 0

@inject()
class CountingController {
  constructor(private clerk: Clerk) {
    made++
  }

  async show(ctx: HttpContext) {
    return { clerk: this.clerk.name, path: ctx.request.url() }
  }
}

class MethodInjectedController {
  @inject()
  async show(_ctx: HttpContext, clerk: Clerk) {
    return clerk.name
  }
}

function contract(handler: RouteContract['handler']): RouteContract {
  return {
    method: 'GET',
    path: '/test/handled',
    operationId: 'testHandled',
    summary: 'A route for the test',
    tag: 'Test',
    access: access.public(),
    answer: { status: 200, description: 'ok' },
    handler,
  }
}

/** A router that keeps what it is given, so the test can call a route's handler itself. */
function recordingRouter() {
  const handlers: unknown[] = []
  const route = { as: () => route, use: () => route }
  const router = {
    route(_path: string, _methods: string[], handler: unknown) {
      handlers.push(handler)
      return route
    },
  } as unknown as Router
  return { router, handlers }
}

async function mounted(routeContract: RouteContract, makeController: (controller: any) => Promise<any>, registry = new RouteRegistry()) {
  registry.add([routeContract])
  const { router, handlers } = recordingRouter()
  await registry.mount(router, async () => ({}) as any, async () => {}, makeController)
  return handlers[0]
}

const ctx = { request: { url: () => '/test/handled' } } as unknown as HttpContext

test.group('Route handlers', () => {
  test("a controller is made at the route's first request and called directly after", async ({ assert }) => {
    made = 0
    let makes = 0
    const handler = await mounted(contract([async () => ({ default: CountingController }), 'show']), async (Controller) => {
      makes++
      return new Controller(new Clerk())
    })
    assert.isFunction(handler)
    assert.equal(made, 0, 'nothing is made at start')
    assert.deepEqual(await (handler as any)(ctx), { clerk: 'clerk', path: '/test/handled' })
    assert.deepEqual(await (handler as any)(ctx), { clerk: 'clerk', path: '/test/handled' })
    assert.equal(makes, 1)
    assert.equal(made, 1)
  })

  test('a controller that could not be made is made again at the next request', async ({ assert }) => {
    let attempts = 0
    const handler = await mounted(contract([async () => ({ default: CountingController }), 'show']), async (Controller) => {
      if (++attempts === 1) throw new Error('not yet')
      return new Controller(new Clerk())
    })
    await assert.rejects(() => (handler as any)(ctx), 'not yet')
    assert.deepEqual(await (handler as any)(ctx), { clerk: 'clerk', path: '/test/handled' })
    assert.equal(attempts, 2)
  })

  test('an action taking services as parameters is refused at start', async ({ assert }) => {
    await assert.rejects(
      () => mounted(contract([async () => ({ default: MethodInjectedController }), 'show']), async () => ({})),
      'MethodInjectedController.show takes services as parameters: a controller takes them in its constructor'
    )
  })

  test('after remakeControllers the next request makes the controller again, with what the maker gives then', async ({ assert }) => {
    const registry = new RouteRegistry()
    let clerkName = 'first'
    const handler = await mounted(
      contract([async () => ({ default: CountingController }), 'show']),
      async (Controller) => {
        const clerk = new Clerk()
        clerk.name = clerkName
        return new Controller(clerk)
      },
      registry
    )
    assert.equal((await (handler as any)(ctx)).clerk, 'first')
    clerkName = 'swapped'
    assert.equal((await (handler as any)(ctx)).clerk, 'first', 'kept until told')
    registry.remakeControllers()
    assert.equal((await (handler as any)(ctx)).clerk, 'swapped')
    assert.equal((await (handler as any)(ctx)).clerk, 'swapped')
  })
})
