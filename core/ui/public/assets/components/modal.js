// A <dialog> shown as modal for as long as its component is mounted.
import { useEffect, useRef } from 'preact/hooks';

/**
 * Shows a <dialog> as modal while the component is mounted: Esc asks `onClose`, and on unmount focus goes back to
 * what had it before (the button that opened it).
 * @param {() => void} onClose
 * @returns {import('preact').RefObject<HTMLDialogElement | null>}
 */
export function useModal(onClose) {
  const ref = useRef(/** @type {HTMLDialogElement | null} */ (null));
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog) return undefined;
    /** @param {Event} event */
    const onCancel = (event) => {
      // The component decides when it goes: Esc asks, the unmount below closes.
      event.preventDefault();
      close.current();
    };
    dialog.addEventListener('cancel', onCancel);
    if (!dialog.open) dialog.showModal();
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      if (opener && opener.isConnected) opener.focus();
    };
  }, []);
  return ref;
}
