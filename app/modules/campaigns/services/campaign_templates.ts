import db from '@adonisjs/lucid/services/db'

/** A template's text as it is now (launch takes a snapshot); null when it is gone. */
export async function templateBody(templateId: number): Promise<string | null> {
  try {
    const row = await db.from('message_templates').where('id', templateId).select('body').first()
    return row?.body ?? null
  } catch {
    // Templates arrive with their own migration; before it there is no template to name.
    return null
  }
}
