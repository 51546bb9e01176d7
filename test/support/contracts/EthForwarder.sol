// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Pays ether on by internal calls, the way a Safe or an exchange's batcher does: the recipient never appears as a
/// transaction's `to`, only inside its call trace.
contract EthForwarder {
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }

    function split(address payable[] calldata to, uint256[] calldata amounts) external payable {
        require(to.length == amounts.length, "length");
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: amounts[i]}("");
            require(ok, "forward failed");
        }
    }
}
