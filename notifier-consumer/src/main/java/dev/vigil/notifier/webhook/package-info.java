/**
 * Where webhooks go and how they are signed: routes per service or prefix, Standard Webhooks
 * secrets ({@code whsec_…}) and the {@code v1} HMAC-SHA256 signature shared with receivers.
 */
package dev.vigil.notifier.webhook;
