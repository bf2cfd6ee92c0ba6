// The saved colour theme before the first paint (no flash of the wrong theme); app.js owns the toggle.
"use strict";
try {
  const saved = localStorage.getItem("ga-theme");
  if (saved === "light" || saved === "dark") document.documentElement.dataset.theme = saved;
} catch (_) { /* storage disabled: follow the system setting */ }
