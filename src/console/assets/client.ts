/**
 * The console's own script (served as /console/assets/console.js): the signed-upload dance for attachments and
 * Chart.js charts drawn from the JSON in their canvas's data-chart. Everything else is htmx and plain forms.
 */
export const CLIENT_JS = `
(function () {
  'use strict';
  function csrf() {
    try { return JSON.parse(document.body.getAttribute('hx-headers') || '{}')['X-CSRF-Token'] || ''; } catch (e) { return ''; }
  }
  function say(el, text) { if (el) el.textContent = text; }

  async function upload(input) {
    var file = input.files && input.files[0];
    var target = document.getElementById(input.dataset.uploadTarget);
    var status = document.getElementById(input.dataset.uploadStatus);
    if (!file || !target) return;
    var ext = (file.name.split('.').pop() || '').toLowerCase();
    say(status, 'Uploading ' + file.name + '…');
    try {
      var res = await fetch('/console/uploads?fileType=' + encodeURIComponent(ext), {
        method: 'POST', headers: { 'X-CSRF-Token': csrf() }, credentials: 'same-origin',
      });
      var body = await res.json();
      if (!res.ok) throw new Error(body.message || 'upload refused');
      var signed = new URL(body.url, location.href);
      var put = await fetch(signed.pathname + signed.search, { method: 'PUT', body: file, headers: { 'Content-Type': file.type || 'application/octet-stream' } });
      var stored = await put.json();
      if (!put.ok) throw new Error(stored.message || 'upload failed');
      target.value = body.key;
      say(status, 'Uploaded ' + file.name + ' (' + stored.data.size + ' bytes, sha256 ' + stored.data.sha256.slice(0, 12) + '…)');
    } catch (e) {
      target.value = '';
      say(status, 'Upload failed: ' + e.message);
    }
  }

  function charts(root) {
    if (!window.Chart) return;
    root.querySelectorAll('canvas[data-chart]').forEach(function (canvas) {
      if (canvas.dataset.drawn) return;
      canvas.dataset.drawn = '1';
      new window.Chart(canvas, JSON.parse(canvas.dataset.chart));
    });
  }

  document.addEventListener('change', function (e) {
    var t = e.target;
    if (t instanceof HTMLInputElement && t.type === 'file' && t.dataset.uploadTarget) upload(t);
  });
  document.addEventListener('DOMContentLoaded', function () { charts(document); });
  document.addEventListener('htmx:load', function (e) { charts(e.target); });
})();
`;
