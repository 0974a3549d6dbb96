import { defineSettings, missingHalves, z } from '../../config/settings.ts';

/** Campaign mailboxes (docs/mail.md): the receiving domain, the built-in SMTP receiver, the providers. */
export interface MailSettings {
  mail: MailConfig;
}

export interface MailConfig {
  /** The receiving domain of campaign addresses (default: the host of CAIRN_BASE_URL). */
  domain: string;
  /** The built-in SMTP receiver: off when port is unset. */
  smtp: { port: number | undefined; host: string; tlsKeyFile?: string; tlsCertFile?: string };
  mailgun: { signingKey?: string; apiKey?: string };
  postal: { publicKey?: string; apiKey?: string };
}

export const mailSettings = defineSettings({
  env: {
    CAIRN_MAIL_DOMAIN: z
      .string()
      .trim()
      .toLowerCase()
      .regex(
        /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/,
        'must be a domain name',
      )
      .optional(),
    CAIRN_SMTP_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
    CAIRN_SMTP_HOST: z.string().min(1).optional(),
    CAIRN_SMTP_TLS_KEY_FILE: z.string().min(1).optional(),
    CAIRN_SMTP_TLS_CERT_FILE: z.string().min(1).optional(),
    CAIRN_MAILGUN_SIGNING_KEY: z.string().min(8, 'must be at least 8 characters').max(500).optional(),
    CAIRN_MAILGUN_API_KEY: z.string().min(8, 'must be at least 8 characters').max(500).optional(),
    CAIRN_POSTAL_PUBLIC_KEY: z.string().min(40, 'must be a PEM or base64 public key').max(10_000).optional(),
    CAIRN_POSTAL_API_KEY: z.string().min(16, 'must be at least 16 characters').max(500).optional(),
  },
  secrets: ['CAIRN_MAILGUN_SIGNING_KEY', 'CAIRN_MAILGUN_API_KEY', 'CAIRN_POSTAL_API_KEY'],
  check(e, given) {
    const halves = missingHalves(given, [
      ['CAIRN_SMTP_TLS_KEY_FILE', 'CAIRN_SMTP_TLS_CERT_FILE', 'STARTTLS needs the key and its certificate'],
      ['CAIRN_POSTAL_PUBLIC_KEY', 'CAIRN_POSTAL_API_KEY', 'Postal deliveries are checked with both'],
    ]);
    if (e.CAIRN_MAILGUN_API_KEY && !e.CAIRN_MAILGUN_SIGNING_KEY) {
      halves.push(
        'CAIRN_MAILGUN_SIGNING_KEY: required with CAIRN_MAILGUN_API_KEY (receiving checks the webhook signing key; the API key alone receives nothing)',
      );
    }
    return halves;
  },
  read: (e, base) => ({
    mail: {
      domain: e.CAIRN_MAIL_DOMAIN ?? new URL(base.baseUrl).hostname.replace(/^\[|\]$/g, ''),
      smtp: {
        port: e.CAIRN_SMTP_PORT,
        host: e.CAIRN_SMTP_HOST ?? base.host,
        ...(e.CAIRN_SMTP_TLS_KEY_FILE ? { tlsKeyFile: e.CAIRN_SMTP_TLS_KEY_FILE } : {}),
        ...(e.CAIRN_SMTP_TLS_CERT_FILE ? { tlsCertFile: e.CAIRN_SMTP_TLS_CERT_FILE } : {}),
      },
      mailgun: {
        ...(e.CAIRN_MAILGUN_SIGNING_KEY ? { signingKey: e.CAIRN_MAILGUN_SIGNING_KEY } : {}),
        ...(e.CAIRN_MAILGUN_API_KEY ? { apiKey: e.CAIRN_MAILGUN_API_KEY } : {}),
      },
      postal: {
        ...(e.CAIRN_POSTAL_PUBLIC_KEY ? { publicKey: e.CAIRN_POSTAL_PUBLIC_KEY } : {}),
        ...(e.CAIRN_POSTAL_API_KEY ? { apiKey: e.CAIRN_POSTAL_API_KEY } : {}),
      },
    },
  }),
});
