#ifndef WHISTLE_DOMAIN_ADDRESS_H
#define WHISTLE_DOMAIN_ADDRESS_H

#include <stdbool.h>
#include <sys/socket.h>

/*
 * Which addresses an outbound research fetch may connect to (ARCHITECTURE.md security
 * rules): public unicast only. Refused: loopback, unspecified, RFC 1918 private, carrier
 * NAT, link-local (so the 169.254.169.254 metadata service), multicast, reserved and
 * documentation ranges, IPv6 loopback / ULA / link-local / multicast, and the IPv4-mapped,
 * IPv4-compatible and NAT64 forms of refused IPv4 addresses.
 */
bool address_is_public(const struct sockaddr *sa);

#endif
