// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Stands in for the OP-stack GasPriceOracle predeploy (0x420000000000000000000000000000000000000F) on a local node:
/// a fixed L1 data fee per transaction.
contract L1FeeOracle {
    function getL1Fee(bytes calldata) external pure returns (uint256) {
        return 1e12;
    }
}
