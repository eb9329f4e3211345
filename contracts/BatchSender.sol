// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice The part of ERC-20 the batch sender calls.
interface IERC20TransferFrom {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title Batch token sender (benchmarks and devnet tooling)
/// @notice Makes many ERC-20 transfers from the caller in one transaction: each one is a real
///         `transferFrom(msg.sender, to[i], amounts[i])`, so every recipient sees an ordinary
///         `Transfer(caller, to[i], amounts[i])` log of the token itself. The caller approves
///         this contract on the token first. Used by bench/deposits.ts to put 10,000 deposits
///         on a devnet in a few dozen transactions.
contract BatchSender {
    error LengthMismatch(uint256 recipients, uint256 amounts);
    error TransferFailed(uint256 index);

    function send(IERC20TransferFrom token, address[] calldata to, uint256[] calldata amounts) external {
        if (to.length != amounts.length) revert LengthMismatch(to.length, amounts.length);
        for (uint256 i = 0; i < to.length; ++i) {
            // A token that returns false instead of reverting must not pass silently.
            if (!token.transferFrom(msg.sender, to[i], amounts[i])) revert TransferFailed(i);
        }
    }
}
