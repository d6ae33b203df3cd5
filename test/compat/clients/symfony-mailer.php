<?php
// Symfony Mailer's Postmark bridge (Debian php-symfony-postmark-mailer; what Laravel's `postmark` mailer
// uses) pointed at mailroom: the API transport from a MAILER_DSN, as a Symfony or Laravel application
// configures it, over HTTPS (the bridge always builds https:// URLs) with the certificate verified against
// MR_CA; and the bridge's SMTP transport, whose host is fixed to the hosted service, given mailroom's
// submission port by a subclass. One JSON line per step; symfony-mailer.test.ts asserts on them and on
// what mailroom delivered. Settings: MR_PORT, MR_SMTP_PORT, MR_SERVER_TOKEN, MR_CA.
require '/usr/share/php/Symfony/Component/Mailer/Bridge/Postmark/autoload.php';
require '/usr/share/php/Symfony/Component/HttpClient/autoload.php';

use Symfony\Component\HttpClient\HttpClient;
use Symfony\Component\Mailer\Bridge\Postmark\Transport\PostmarkSmtpTransport;
use Symfony\Component\Mailer\Bridge\Postmark\Transport\PostmarkTransportFactory;
use Symfony\Component\Mailer\Header\MetadataHeader;
use Symfony\Component\Mailer\Header\TagHeader;
use Symfony\Component\Mailer\Transport;
use Symfony\Component\Mailer\Transport\Dsn;
use Symfony\Component\Mailer\Transport\Smtp\EsmtpTransport;
use Symfony\Component\Mime\Email;

$token = getenv('MR_SERVER_TOKEN');
$gif = base64_decode('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==');

function step(string $name, callable $fn): void
{
    try {
        echo json_encode(['step' => $name] + $fn()), "\n";
    } catch (\Throwable $e) {
        echo json_encode(['step' => $name, 'error' => get_class($e) . ': ' . substr($e->getMessage(), 0, 2000)]), "\n";
    }
}

/** The message an application builds: text, HTML with an embedded image, an attachment, a tag, metadata, a
 * header of its own, and its own Message-ID kept with X-PM-KeepID. */
function message(string $subject, string $messageId, string $gif): Email
{
    $email = (new Email())
        ->from('Shop <sender@example.com>')
        ->to('reader@dest.example')
        ->subject($subject)
        ->text('Your order shipped.')
        ->html('<p>Your order shipped.</p><img src="cid:logo.gif">')
        ->attach('%PDF-1.4 invoice', 'invoice.pdf', 'application/pdf')
        ->embed($gif, 'logo.gif', 'image/gif');
    $headers = $email->getHeaders();
    $headers->add(new TagHeader('shipping'));
    $headers->add(new MetadataHeader('orderId', '42'));
    $headers->addIdHeader('Message-ID', $messageId);
    $headers->addTextHeader('X-PM-KeepID', 'true');
    $headers->addTextHeader('X-Order', '42');
    return $email;
}

step('api', function () use ($token, $gif) {
    $client = HttpClient::create(['cafile' => getenv('MR_CA')]);
    $transport = Transport::fromDsn('postmark+api://' . $token . '@127.0.0.1:' . getenv('MR_PORT'), null, $client);
    $sent = $transport->send(message('Symfony API', 'order-42@shop.example', $gif));
    return ['message_id' => $sent->getMessageId(), 'transport' => (string) $transport];
});

// Laravel's `postmark` mailer creates this factory's transport with the host fixed ('default'); the custom
// mailer docs/frameworks.md registers with Mail::extend() gives it mailroom's host and port instead.
step('laravel', function () use ($token, $gif) {
    $client = HttpClient::create(['cafile' => getenv('MR_CA')]);
    $transport = (new PostmarkTransportFactory(null, $client))->create(new Dsn('postmark+api', '127.0.0.1', $token, null, (int) getenv('MR_PORT')));
    $sent = $transport->send(message('Laravel API', 'order-46@shop.example', $gif));
    return ['message_id' => $sent->getMessageId()];
});

/** PostmarkSmtpTransport with mailroom's submission port instead of smtp.postmarkapp.com:587. */
final class MailroomSmtpTransport extends PostmarkSmtpTransport
{
    public function __construct(string $token, int $port)
    {
        EsmtpTransport::__construct('127.0.0.1', $port, false);
        $this->setUsername($token);
        $this->setPassword($token);
    }
}

step('smtp', function () use ($token, $gif) {
    $transport = new MailroomSmtpTransport($token, (int) getenv('MR_SMTP_PORT'));
    $sent = $transport->send(message('Symfony SMTP', 'order-43@shop.example', $gif));
    return ['message_id' => $sent->getMessageId()];
});
