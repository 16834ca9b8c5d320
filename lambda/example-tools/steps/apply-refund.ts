// Lambda step of refund_order: applies the approved refund (a stand-in for a payment service). The approver may lower
// the amount; without one, the whole order is refunded.
interface ApprovedRefund {
  readonly order: { readonly orderId: string; readonly amount: number; readonly currency: string };
  readonly approval: {
    readonly action: 'accept';
    readonly content: { readonly approve: true; readonly amount?: number; readonly note?: string };
  };
}

export const handler = async (input: ApprovedRefund) => {
  const { order, approval } = input;
  return {
    orderId: order.orderId,
    refunded: true,
    outcome: 'refunded',
    amount: approval.content.amount ?? order.amount,
    currency: order.currency,
    ...(approval.content.note !== undefined ? { note: approval.content.note } : {}),
  };
};
