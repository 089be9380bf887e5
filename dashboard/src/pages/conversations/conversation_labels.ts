import { signedIn } from '../../session/session'
import type { Conversation } from './use_inbox'
import { conversationStateLabels } from '../../components/labels'

/** What an account id stands for here: "you", a known account's name, or the bare id. */
export function assigneeName(id: string | null, names: ReadonlyMap<string, string>): string {
  if (id === null) return 'nobody'
  if (signedIn.value?.user.id === id) return 'you'
  return names.get(id) ?? `account ${id}`
}

/** The line under the number: the API carries no message text in a conversation, so its state. */
export function conversationState(conversation: Conversation): string {
  return conversationStateLabels[conversation.state]
}
