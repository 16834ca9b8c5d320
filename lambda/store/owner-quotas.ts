// The per-owner limits contract: creations per minute and active-task slots. Kept apart from the task repository:
// these are counters about an owner, not task records. They are shared by every instance on the same storage, so a
// limit holds across Lambda instances.

export interface OwnerQuotas {
  /**
   * Counts one task creation in the owner's window starting at `window.start` (epoch ms, `window.ms` long),
   * conditionally: returns false, counting nothing, when the window already holds `max` creations. Atomic: no
   * two callers can both take the last place.
   */
  countCreation(owner: string, window: { start: number; ms: number }, max: number): Promise<boolean>;

  /**
   * Holds one of the owner's `max` active-task slots for this task, conditionally and atomically: returns
   * false, holding nothing, when `max` other tasks hold one. Idempotent per task: a task that holds a slot
   * keeps it (true) and counts once.
   */
  holdActiveSlot(owner: string, taskId: string, max: number): Promise<boolean>;

  /** Frees the task's active-task slot. Idempotent: a slot freed twice, or never held, changes nothing. */
  releaseActiveSlot(owner: string, taskId: string): Promise<void>;

  /**
   * Frees every slot of the owner whose task is no longer active (terminal, deleted, expired): a repair for a
   * release lost to a crash or a task swept unseen. Returns how many slots it freed.
   */
  reconcileActiveSlots(owner: string): Promise<number>;
}
