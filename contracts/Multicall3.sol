// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Multicall3-compatible batcher for the local devnet
/// @notice Same ABI as the canonical Multicall3 (deployed at 0xcA11bde05977b3631167028862bE2a173976CA11
///         on public chains), so viem's `multicall` and other tooling work unchanged against the
///         devnet. The devnet installs this contract's runtime code at the canonical address with
///         `anvil_setCode`; that skips the constructor, so the contract keeps no state at all.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Call3Value {
        address target;
        bool allowFailure;
        uint256 value;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    // Revert strings match the canonical contract's, so callers matching on them behave alike.
    string private constant CALL_FAILED = "Multicall3: call failed";

    /// @notice Legacy entry point: every call must succeed.
    function aggregate(Call[] calldata calls)
        public
        payable
        returns (uint256 blockNumber, bytes[] memory returnData)
    {
        blockNumber = block.number;
        returnData = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(ok, CALL_FAILED);
            returnData[i] = ret;
        }
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls)
        public
        payable
        returns (Result[] memory returnData)
    {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(ok, CALL_FAILED);
            returnData[i] = Result(ok, ret);
        }
    }

    function tryBlockAndAggregate(bool requireSuccess, Call[] calldata calls)
        public
        payable
        returns (uint256 blockNumber, bytes32 blockHash, Result[] memory returnData)
    {
        blockNumber = block.number;
        // The hash of the current block is not known during execution; like the canonical
        // contract we report the parent's, which is what callers use to pin their reads.
        blockHash = _parentHash();
        returnData = tryAggregate(requireSuccess, calls);
    }

    function blockAndAggregate(Call[] calldata calls)
        external
        payable
        returns (uint256 blockNumber, bytes32 blockHash, Result[] memory returnData)
    {
        return tryBlockAndAggregate(true, calls);
    }

    /// @notice The entry point viem uses: per-call failure tolerance.
    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            Call3 calldata c = calls[i];
            (bool ok, bytes memory ret) = c.target.call(c.callData);
            if (!c.allowFailure) require(ok, CALL_FAILED);
            returnData[i] = Result(ok, ret);
        }
    }

    function aggregate3Value(Call3Value[] calldata calls)
        external
        payable
        returns (Result[] memory returnData)
    {
        uint256 spent = 0;
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            Call3Value calldata c = calls[i];
            spent += c.value;
            (bool ok, bytes memory ret) = c.target.call{value: c.value}(c.callData);
            if (!c.allowFailure) require(ok, CALL_FAILED);
            returnData[i] = Result(ok, ret);
        }
        // Checked after the loop so a mismatch always reverts, and no ether can be stranded
        // here or drawn from a balance the caller did not send.
        require(msg.value == spent, "Multicall3: value mismatch");
    }

    function getBlockHash(uint256 blockNumber) external view returns (bytes32) {
        return blockhash(blockNumber);
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }

    function getCurrentBlockCoinbase() external view returns (address) {
        return block.coinbase;
    }

    /// @dev After the merge the DIFFICULTY opcode returns PREVRANDAO; the name stays for ABI
    ///      compatibility.
    function getCurrentBlockDifficulty() external view returns (uint256) {
        return block.prevrandao;
    }

    function getCurrentBlockGasLimit() external view returns (uint256) {
        return block.gaslimit;
    }

    function getCurrentBlockTimestamp() external view returns (uint256) {
        return block.timestamp;
    }

    function getEthBalance(address addr) external view returns (uint256) {
        return addr.balance;
    }

    function getLastBlockHash() external view returns (bytes32) {
        return _parentHash();
    }

    function getBasefee() external view returns (uint256) {
        return block.basefee;
    }

    function getChainId() external view returns (uint256) {
        return block.chainid;
    }

    // A fresh devnet answers eth_call at block 0, where `block.number - 1` would underflow and
    // revert; genesis has no parent, so zero is the honest answer.
    function _parentHash() private view returns (bytes32) {
        return block.number == 0 ? bytes32(0) : blockhash(block.number - 1);
    }
}
