#!/usr/bin/perl
# A folder plugin's sidecar in Perl, with modules of perl-base only (docs/folder-plugins.md):
# GET /health and POST /collect on 127.0.0.1:$SVC_PLUGIN_PORT, one request at a time.
# /collect answers the jokes of jokes.txt and a ticker line; the display's plugin_http
# collector stores them (the ticker text becomes the key-value ticker.marquee.<id>).
use strict;
use warnings;
use IO::Socket::INET;

$| = 1;
my $port = $ENV{SVC_PLUGIN_PORT} or die "SVC_PLUGIN_PORT is not set\n";
my $dir = $ENV{SVC_PLUGIN_DIR} || '.';

sub json_string {
    my ($text) = @_;
    $text =~ s/(["\\])/\\$1/g;
    $text =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord($1))/ge;
    return "\"$text\"";
}

sub jokes {
    open(my $fh, '<:encoding(UTF-8)', "$dir/jokes.txt") or die "jokes.txt: $!\n";
    my @items;
    while (my $line = <$fh>) {
        chomp $line;
        next if $line =~ /^\s*(#|$)/;
        my ($id, $setup, $punchline) = split /\|/, $line, 3;
        push @items, '{"kind": "joke", "id": ' . json_string($id) . ', "setup": ' . json_string($setup)
            . ', "punchline": ' . json_string($punchline // '') . ', "category_id": "tech"}';
    }
    close $fh;
    return @items;
}

sub answer {
    my ($client, $status, $body) = @_;
    my $reason = $status == 200 ? 'OK' : 'Not Found';
    utf8::encode($body);
    print $client "HTTP/1.1 $status $reason\r\nContent-Type: application/json\r\n"
        . "Content-Length: " . length($body) . "\r\nConnection: close\r\n\r\n$body";
}

my $server = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $port, Listen => 16, ReuseAddr => 1)
    or die "cannot listen on 127.0.0.1:$port: $!\n";
$SIG{TERM} = sub { print "stopping\n"; exit 0 };
print "serving on 127.0.0.1:$port\n";

while (1) {
    my $client = $server->accept() or next;
    eval {
        local $SIG{ALRM} = sub { die "timeout\n" };
        alarm 5;
        my $request = <$client> // '';
        my ($method, $path) = $request =~ m{^(\S+) (\S+)};
        my $length = 0;
        while (my $header = <$client>) {
            last if $header =~ /^\r?\n$/;
            $length = $1 if $header =~ /^Content-Length:\s*(\d+)/i;
        }
        read($client, my $ignored, $length) if $length && $length <= 1048576;
        alarm 0;
        $method //= '';
        $path //= '';
        if ($method eq 'GET' && $path eq '/health') {
            answer($client, 200, '{"status": "ok"}');
        } elsif ($method eq 'POST' && $path eq '/collect') {
            my @items = jokes();
            print "collect: " . scalar(@items) . " jokes\n";
            answer($client, 200, '{"items": [' . join(', ', @items) . '], "ticker": '
                . json_string(scalar(@items) . ' jokes, told by a Perl sidecar') . '}');
        } else {
            answer($client, 404, '{"code": "not_found", "message": "no such path"}');
        }
    };
    alarm 0;
    print "request failed: $@" if $@;
    close $client;
}
