# The hosted service's official Ruby gem (Debian ruby-postmark, with ruby-mail and ActionMailer) pointed at
# mailroom, as a Rails application configures it: ApiClient and AccountApiClient calls, a Mail::Message
# sent through `delivery_method Mail::Postmark`, and an ActionMailer mailer using that delivery method
# (what postmark-rails registers). One JSON line per step on stdout; ruby-postmark.test.ts asserts on them
# and on what mailroom stored and delivered. Settings: MR_HOST, MR_PORT, MR_SERVER_TOKEN, MR_ACCOUNT_TOKEN.
require 'json'
require 'postmark'
require 'mail'
require 'action_mailer'

OPTIONS = { host: ENV.fetch('MR_HOST'), port: Integer(ENV.fetch('MR_PORT')), secure: false,
            http_open_timeout: 15, http_read_timeout: 30 }.freeze
GIF = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=='.unpack1('m')

def step(name)
  result = yield
  puts JSON.generate({ step: name }.merge(result.is_a?(Hash) ? result : { value: result }))
rescue StandardError => e
  puts JSON.generate(step: name, error: "#{e.class}: #{e.message}"[0, 2000])
end

api = Postmark::ApiClient.new(ENV.fetch('MR_SERVER_TOKEN'), **OPTIONS)
account = Postmark::AccountApiClient.new(ENV.fetch('MR_ACCOUNT_TOKEN'), **OPTIONS)

step('deliver') do
  r = api.deliver(from: 'Shop <sender@example.com>', to: 'reader@dest.example', subject: 'Ruby deliver',
                  text_body: 'Hello', html_body: '<p>Hello</p>', tag: 'ruby-api', metadata: { 'orderId' => '42' },
                  headers: [{ 'Name' => 'X-Order', 'Value' => '42' }],
                  attachments: [{ name: 'hello.txt', content: ['hi there'].pack('m0'), content_type: 'text/plain' }])
  { message_id: r[:message_id], error_code: r[:error_code] }
end

step('deliver_in_batches') do
  r = api.deliver_in_batches([
    { from: 'sender@example.com', to: 'a@dest.example', subject: 'Ruby batch 1', text_body: 'one' },
    { from: 'sender@example.com', to: 'b@dest.example', subject: 'Ruby batch 2', text_body: 'two' },
  ])
  { codes: r.map { |m| m[:error_code] }, ids: r.map { |m| m[:message_id] } }
end

step('templates') do
  t = api.create_template(name: 'Ruby welcome', alias: 'ruby-welcome', subject: 'Welcome {{name}}',
                          html_body: '<p>Hi {{name}}</p>', text_body: 'Hi {{name}}')
  got = api.get_template('ruby-welcome')
  api.update_template(t[:template_id], subject: 'Welcome, {{name}}')
  valid = api.validate_template(subject: '{{name}}', html_body: '<p>{{name}}</p>', text_body: '{{name}}',
                                test_render_model: { name: 'Ann' })
  sent = api.deliver_with_template(from: 'sender@example.com', to: 'reader@dest.example',
                                   template_alias: 'ruby-welcome', template_model: { name: 'Ann' })
  listed = api.get_templates(count: 10, offset: 0)
  { id: t[:template_id], alias: got[:alias], valid: valid[:all_content_is_valid],
    rendered: valid[:subject][:rendered_content], sent_id: sent[:message_id], listed: listed.last }
end

step('servers') do
  s = account.create_server(name: 'Ruby server', color: 'blue')
  got = account.get_server(s[:id])
  updated = account.update_server(s[:id], name: 'Ruby server 2')
  account.delete_server(s[:id])
  { id: s[:id], color: got[:color], name: updated[:name] }
end

step('bounces') do
  { bounces: api.get_bounces(count: 10, offset: 0).length, stats: api.delivery_stats[:bounces].length }
end

step('server_info') { { name: api.server_info[:name] } }

# A Mail::Message as an application builds it: text and HTML, attachments, a tag, metadata, a header of its
# own, and its own Message-ID kept with X-PM-KeepID (reply threading).
step('mail_message') do
  message = Mail.new do
    from 'Shop <sender@example.com>'
    to 'reader@dest.example'
    subject 'Ruby Mail::Message'
    message_id '<order-42@shop.example>'
    text_part { body 'Your order shipped.' }
    html_part do
      content_type 'text/html; charset=UTF-8'
      body '<p>Your order shipped.</p>'
    end
  end
  message.header['X-PM-KeepID'] = 'true'
  message.header['X-Order'] = '42'
  message.tag 'shipping'
  message.metadata = { 'orderId' => '42' }
  message.attachments['invoice.pdf'] = '%PDF-1.4 invoice'
  message.attachments['pixel.gif'] = GIF
  message.delivery_method Mail::Postmark, { api_token: ENV.fetch('MR_SERVER_TOKEN'), return_response: true }.merge(OPTIONS)
  r = message.deliver!
  { message_id: r[:message_id], error_code: r[:error_code] }
end

# ActionMailer with the delivery method postmark-rails registers (`config.action_mailer.delivery_method =
# :postmark`), the tag given to mail() and an inline image the HTML shows (`attachments[...].url`, what
# image_tag writes).
ActionMailer::Base.add_delivery_method :postmark, Mail::Postmark, { api_token: ENV.fetch('MR_SERVER_TOKEN'), return_response: true }.merge(OPTIONS)
class OrderMailer < ActionMailer::Base
  default from: 'Shop <sender@example.com>'
  def shipped
    attachments['receipt.txt'] = 'receipt 42'
    attachments.inline['logo.gif'] = GIF
    headers['Message-ID'] = '<shipped-42@shop.example>'
    headers['X-PM-KeepID'] = 'true'
    mail(to: 'reader@dest.example', subject: 'Ruby ActionMailer', tag: 'rails') do |format|
      format.text { render plain: 'Shipped.' }
      format.html { render html: %(<p>Shipped.</p><img src="#{attachments['logo.gif'].url}">).html_safe }
    end
  end
end
ActionMailer::Base.delivery_method = :postmark

step('action_mailer') do
  m = OrderMailer.shipped.deliver_now
  { message_id: m.postmark_response && m.postmark_response['MessageID'], delivered: m.delivered? }
end
