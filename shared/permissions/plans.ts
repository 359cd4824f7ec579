/**
 * Plan caps (spec §6: "Plans may cap the number of buttons or phone numbers"; the spec does not give the
 * numbers, these are ours). An application is on one plan; the server refuses what the plan does not allow
 * with PLAN_LIMIT and the spec's wording (plan.maxButtons, plan.maxPhones).
 */
export const PLAN_NAMES = ['free', 'pay_as_you_go'] as const;
export type Plan = (typeof PLAN_NAMES)[number];

export const PLANS = {
  free: { maxleadButtons: 3, maxleadPhones: 1, maxPushButtons: 2 },
  pay_as_you_go: { maxleadButtons: 19, maxleadPhones: 10, maxPushButtons: 3 },
} as const satisfies Record<Plan, { maxleadButtons: number; maxleadPhones: number; maxPushButtons: number }>;
export const DEFAULT_PLAN: Plan = 'free';

/** The i18n key and parameters of the first cap a maxlead configuration exceeds, or null. */
export function maxleadPlanViolation(
  plan: Plan,
  settings: { buttons: readonly unknown[]; phones?: readonly unknown[] },
): { key: string; params: { number: number } } | null {
  const caps = PLANS[plan];
  if (settings.buttons.length > caps.maxleadButtons) return { key: 'plan.maxButtons', params: { number: caps.maxleadButtons } };
  if ((settings.phones?.length ?? 0) > caps.maxleadPhones) return { key: 'plan.maxPhones', params: { number: caps.maxleadPhones } };
  return null;
}

/** The i18n key and parameters when a message (or template) has more action buttons than the plan allows, or null. */
export function pushPlanViolation(plan: Plan, content: { buttons: readonly unknown[] }): { key: string; params: { number: number } } | null {
  const cap = PLANS[plan].maxPushButtons;
  return content.buttons.length > cap ? { key: 'plan.maxButtons', params: { number: cap } } : null;
}
