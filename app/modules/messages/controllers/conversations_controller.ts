import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ConversationInbox } from '#modules/messages/services/conversation_inbox'
import { listConversationsValidator, updateConversationValidator } from '#modules/messages/validators/conversation_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'

@inject()
export default class ConversationsController {
  constructor(private inbox: ConversationInbox) {}

  async index({ request }: HttpContext) {
    return this.inbox.list(await request.validateUsing(listConversationsValidator, { data: request.qs() }))
  }

  async show({ params }: HttpContext) {
    return this.inbox.find(idParam(params.id, 'Conversation'))
  }

  async messages({ params, request }: HttpContext) {
    return this.inbox.messages(idParam(params.id, 'Conversation'), await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  async update({ params, request }: HttpContext) {
    return this.inbox.update(idParam(params.id, 'Conversation'), await request.validateUsing(updateConversationValidator, { data: request.body() }))
  }
}
