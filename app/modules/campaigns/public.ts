/**
 * What the campaigns module offers other modules (docs/modules.md): templates and how a
 * template's text is filled in for a recipient (automation replies with templates too).
 */
export { TemplateLibrary } from '#modules/campaigns/services/template_library'
export { renderTemplate, templateVariables, type TemplateRecipient } from '#modules/campaigns/services/template_text'
