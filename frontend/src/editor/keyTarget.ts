// Whose keys a key press is: a text field's own (typing, its own undo and copy) or the editor's.

/** Whether `target` takes typing (an input, a text area, a select or editable content). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName);
}
