/* global document, location, navigator, FormData, window */
// The console's one script: progressive enhancement only (every page works without it). Values from the
// server arrive as HTML it escaped, or are set with textContent; nothing here builds markup from data.
(function () {
  'use strict';

  // Times: the server writes each instant as <time datetime> in UTC; shown here in the viewer's time zone,
  // named ("2026-11-28 11:58:44 CET"), the zone's full name on hover.
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  var fmt = new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
  var localTimes = function (root) {
    root.querySelectorAll('time[datetime]').forEach(function (el) {
      var d = new Date(el.getAttribute('datetime'));
      if (isNaN(d.getTime())) return;
      var p = {};
      fmt.formatToParts(d).forEach(function (x) { p[x.type] = x.value; });
      el.textContent = p.year + '-' + p.month + '-' + p.day + ' ' + p.hour + ':' + p.minute + ':' + p.second + ' ' + p.timeZoneName;
      el.title = zone;
    });
  };
  localTimes(document);

  document.querySelectorAll('select[data-autosubmit]').forEach(function (sel) {
    sel.addEventListener('change', function () { sel.form.submit(); });
  });
  document.querySelectorAll('.js-hide').forEach(function (el) { el.hidden = true; });

  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest && ev.target.closest('button[data-copy]');
    if (!btn) return;
    var target = document.querySelector(btn.getAttribute('data-copy'));
    if (!target) return;
    // Without the clipboard API (a console served over plain http from another host is not a secure
    // context) the value is selected instead, for the keyboard's copy.
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(target);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    };
    if (!navigator.clipboard) { select(); return; }
    navigator.clipboard.writeText(target.textContent).then(function () {
      var was = btn.textContent;
      btn.textContent = 'Copied';
      setTimeout(function () { btn.textContent = was; }, 1500);
    }, select);
  });

  // Activity: new messages since the newest row, every two seconds while the tab is visible.
  var live = document.querySelector('tbody[data-live]');
  if (live) {
    var url = live.getAttribute('data-live');
    var state = document.getElementById('live-state');
    var busy = false;
    var poll = function () {
      if (busy || document.hidden) return;
      busy = true;
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (res) {
          if (res.status === 401) { clearInterval(timer); if (state) state.textContent = 'Signed out: reload to sign in.'; return null; }
          return res.ok ? res.json() : null;
        })
        .then(function (data) {
          if (!data || !data.count) return;
          live.insertAdjacentHTML('afterbegin', data.html);
          localTimes(live);
          var u = new URL(url, location.href);
          u.searchParams.set('after', data.newest);
          url = u.pathname + u.search;
          var empty = document.querySelector('p.empty');
          if (empty) empty.remove();
          // A Sandbox server's inbox line follows.
          if (data.inbox) {
            var unreadEl = document.getElementById('inbox-unread');
            var totalEl = document.getElementById('inbox-total');
            if (unreadEl) unreadEl.textContent = data.inbox.unread.toLocaleString('en');
            if (totalEl) totalEl.textContent = data.inbox.total.toLocaleString('en');
          }
          if (state) state.textContent = 'Live: ' + data.count + ' new message' + (data.count === 1 ? '' : 's') + ' just arrived.';
        })
        .catch(function () {})
        .then(function () { busy = false; });
    };
    var timer = setInterval(poll, 2000);
  }

  // Template editor: re-render the preview (posted into its sandboxed frame) and show validation errors
  // beside their field as you type.
  var form = document.getElementById('template-form');
  if (form) {
    var previewButton = document.getElementById('preview-button');
    var pending = null;
    var check = function () {
      form.requestSubmit(previewButton);
      fetch(form.getAttribute('data-check'), { method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' })
        // 422: the check was refused as a whole (a render over its budget), {ErrorCode, Message}.
        .then(function (res) { return res.ok || res.status === 422 ? res.json() : null; })
        .then(function (data) {
          if (!data) return;
          ['Subject', 'HtmlBody', 'TextBody'].forEach(function (part) {
            var list = document.getElementById('errors-' + part);
            if (!list) return;
            list.replaceChildren();
            var r = data.result && data.result[part];
            var errors = r ? r.ValidationErrors : [];
            var whole = data.modelError || data.Message;
            if (part === 'HtmlBody' && whole) errors = [{ Message: whole, Line: null }];
            errors.forEach(function (e) {
              var li = document.createElement('li');
              li.textContent = e.Message + (e.Line != null ? ' (line ' + e.Line + ', position ' + e.CharacterPosition + ')' : '');
              list.appendChild(li);
            });
          });
          var subject = document.getElementById('rendered-subject');
          var s = data.result && data.result.Subject;
          if (subject && s) subject.textContent = s.RenderedContent || '';
        })
        .catch(function () {});
    };
    form.addEventListener('input', function (ev) {
      if (!ev.target.hasAttribute('data-preview')) return;
      clearTimeout(pending);
      pending = setTimeout(check, 400);
    });
    // Once more when the frame's first page has loaded: the form may carry more than what is stored (a page
    // answering a test send keeps unsaved edits and the test model), and the subject line gets filled in.
    // Not before: a post into the frame while its first navigation is still under way can be lost.
    var frame = document.getElementById('template-preview');
    if (frame) frame.addEventListener('load', function first() { frame.removeEventListener('load', first); check(); });
  }
})();
