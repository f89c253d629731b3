-- Drives the AttnScope language server from Neovim's built-in LSP client (headless), as a user's
-- Neovim does, and writes what it saw as JSON to $ATTNSCOPE_OUT for test/lsp/neovim.test.ts.
-- Written for Neovim 0.7 (Debian 12), whose client differs from VS Code's where it matters:
--   * it hands diagnostics back for code actions in its own columns (UTF-8 bytes, not LSP's
--     UTF-16 units), so a quick fix must be found by the diagnostic's data or an overlap;
--   * it implements no client-side commands, so a code lens must be one the server executes;
--   * it does not watch files for the server (no workspace/didChangeWatchedFiles).
-- Environment: ATTNSCOPE_SERVER (dist/server.js), ATTNSCOPE_PROFILE (a profile whose line 4 has
-- a non-ASCII key before the typo "dtpye"), ATTNSCOPE_CONFIG (the config.json it points at,
-- not opened here), ATTNSCOPE_OUT.
local out = { steps = {}, messages = {} }
local function step(name, value)
  out.steps[#out.steps + 1] = name
  out[name] = value
end
local function finish(err)
  if err then out.error = tostring(err) end
  local f = assert(io.open(os.getenv('ATTNSCOPE_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  out.nvim = vim.version()
  vim.lsp.handlers['window/showMessage'] = function(_, result)
    out.messages[#out.messages + 1] = result.message
  end
  local profile = os.getenv('ATTNSCOPE_PROFILE')
  local client_id = vim.lsp.start_client({
    name = 'attnscope',
    cmd = { 'node', os.getenv('ATTNSCOPE_SERVER'), '--stdio' },
    root_dir = vim.fn.fnamemodify(profile, ':h'),
    init_options = { validationDelayMs = 0 },
  })
  assert(client_id, 'the client did not start')
  vim.cmd('edit ' .. vim.fn.fnameescape(profile))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  assert(vim.wait(30000, function() return client.initialized and #vim.diagnostic.get(buf) > 0 end, 50), 'no diagnostics within 30 s')
  local uri = vim.uri_from_bufnr(buf)

  -- 1. Diagnostics as Neovim stores them (0-based line, byte column).
  local diags = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    diags[#diags + 1] = { lnum = d.lnum, col = d.col, message = d.message, code = d.code }
  end
  step('diagnostics', diags)

  -- 2. Hover on `page_size` (line 9, "  page_size: 16").
  local hover = client.request_sync('textDocument/hover', { textDocument = { uri = uri }, position = { line = 8, character = 4 } }, 15000, buf)
  step('hover', hover and hover.result and hover.result.contents and hover.result.contents.value or vim.NIL)

  -- 3. A quick fix on line 4, where "größe" (two 2-byte characters) precedes "dtpye": the
  -- diagnostics handed back as Neovim's code_action() does, converted back from its store.
  local line_diags = vim.lsp.diagnostic.get_line_diagnostics(buf, 3, {}, client_id)
  local dtpye
  for _, d in ipairs(line_diags) do
    if d.message:find('dtpye', 1, true) then dtpye = d end
  end
  assert(dtpye, 'no diagnostic for dtpye on line 4')
  step('sentRange', dtpye.range)
  local actions = client.request_sync('textDocument/codeAction', { textDocument = { uri = uri }, range = dtpye.range, context = { diagnostics = { dtpye } } }, 15000, buf)
  local titles = {}
  local rename
  for _, a in ipairs((actions and actions.result) or {}) do
    titles[#titles + 1] = a.title
    if a.title == 'Rename to "dtype"' then rename = a end
  end
  step('actions', titles)
  if rename then
    vim.lsp.util.apply_workspace_edit(rename.edit, client.offset_encoding)
    step('lineAfterFix', vim.api.nvim_buf_get_lines(buf, 3, 4, false)[1])
  end

  -- 4. Code lenses: only commands the server runs (workspace/executeCommand), and running one.
  local lenses = client.request_sync('textDocument/codeLens', { textDocument = { uri = uri } }, 15000, buf)
  local commands = {}
  for _, l in ipairs((lenses and lenses.result) or {}) do
    commands[#commands + 1] = { title = l.command.title, command = l.command.command }
  end
  step('lenses', commands)
  step('executeCommandProvider', client.server_capabilities and client.server_capabilities.executeCommandProvider or client.resolved_capabilities and client.resolved_capabilities.execute_command or vim.NIL)
  if #commands > 0 then
    local first = lenses.result[1].command
    local result = client.request_sync('workspace/executeCommand', { command = first.command, arguments = first.arguments }, 15000, buf)
    step('executed', result and result.result and { kvBytesPerToken = result.result.kvBytesPerToken } or { error = result and result.err and result.err.message or 'no answer' })
    vim.wait(5000, function() return #out.messages > 0 end, 50)
  end

  -- 5. The config.json the profile points at changes on disk (not opened here): 31 KV heads do
  -- not divide 32 query heads, which the profile must report without being edited.
  local config = os.getenv('ATTNSCOPE_CONFIG')
  local text = table.concat(vim.fn.readfile(config), '\n')
  local changed = text:gsub('"num_key_value_heads": 8', '"num_key_value_heads": 31')
  assert(changed ~= text, 'the config has no "num_key_value_heads": 8')
  vim.fn.writefile(vim.split(changed, '\n'), config)
  local seen = vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find('num_key_value_heads', 1, true) then return true end
    end
    return false
  end, 100)
  local after = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do after[#after + 1] = d.message end
  step('afterDiskChange', { seen = seen, messages = after })
  vim.lsp.stop_client(client_id)
end)
finish(not ok and err or nil)
