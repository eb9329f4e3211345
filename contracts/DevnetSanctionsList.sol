// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Devnet sanctions oracle
/// @notice The interface of the public SanctionsList oracle (Chainalysis), which answers
///         isSanctioned(address) on Ethereum and the other chains it is deployed on, so the
///         service's screening reads the devnet's exactly as it reads mainnet's. The owner
///         (the devnet faucet) adds and removes addresses.
contract DevnetSanctionsList {
    address public owner;
    mapping(address => bool) private sanctioned;

    event SanctionedAddressesAdded(address[] addrs);
    event SanctionedAddressesRemoved(address[] addrs);

    error NotOwner(address caller);
    error AlreadyInitialized();

    constructor() {
        owner = msg.sender;
    }

    /// Installed with anvil_setCode (a fixed address on every EVM devnet), the contract has
    /// no constructor run: the first caller names the owner, once.
    function initialize(address owner_) external {
        if (owner != address(0)) revert AlreadyInitialized();
        owner = owner_;
    }

    function name() external pure returns (string memory) {
        return "Chainalysis sanctions oracle (devnet)";
    }

    function addToSanctionsList(address[] calldata addrs) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        for (uint256 i = 0; i < addrs.length; i++) sanctioned[addrs[i]] = true;
        emit SanctionedAddressesAdded(addrs);
    }

    function removeFromSanctionsList(address[] calldata addrs) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        for (uint256 i = 0; i < addrs.length; i++) sanctioned[addrs[i]] = false;
        emit SanctionedAddressesRemoved(addrs);
    }

    function isSanctioned(address addr) external view returns (bool) {
        return sanctioned[addr];
    }

    function isSanctionedVerbose(address addr) external view returns (bool) {
        return sanctioned[addr];
    }
}
